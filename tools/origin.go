package tools

import "encoding/json"

// Origin is what a call to another program's tool says of where it goes,
// for the approval dialog and the grants it makes.
type Origin interface {
	// Origin names the server, the tool as the server names it, and the
	// tool as the model calls it.
	Origin() (server, tool, name string)
	// Preapproved reports whether the user's config approves the call.
	Preapproved() bool
	// Arguments are the arguments as they will be sent.
	Arguments() json.RawMessage
}

// AsOrigin returns the Origin of a prepared call, when it has one.
func AsOrigin(c Call) (Origin, bool) { return findCall[Origin](c) }

// CallKind is the kind of a prepared call: the one it says it has (a call
// made through another tool, mcp_call's, takes its target's), else its
// tool's, tool.
func CallKind(c Call, tool Kind) Kind {
	if k, ok := findCall[interface{ Kind() Kind }](c); ok {
		return k.Kind()
	}
	return tool
}
