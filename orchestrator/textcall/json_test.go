package textcall

import "testing"

func jsonCases() []findCase {
	return []findCase{
		{
			name:    "bare object alone",
			content: `{"name": "read_file", "arguments": {"path": "main.go"}}`,
			calls:   []call{{"read_file", `{"path":"main.go"}`}},
		},
		{
			name: "json fence after prose",
			content: md(`I'll read the file now.

‵‵‵json
{"name": "read_file", "arguments": {"path": "internal/server/handler.go"}}
‵‵‵`),
			calls: []call{{"read_file", `{"path":"internal/server/handler.go"}`}},
			rest:  "I'll read the file now.",
		},
		{
			name: "llama parameters after thinking-like chatter",
			content: `Okay, so the user wants to know why the build fails. The error mentions the config package, so I should look at it first.

{"name": "list_dir", "parameters": {"path": "config", "depth": 2}}`,
			calls: []call{{"list_dir", `{"path":"config","depth":2}`}},
			rest:  "Okay, so the user wants to know why the build fails. The error mentions the config package, so I should look at it first.",
		},
		{
			name:    "type function with parameters",
			content: `{"type": "function", "name": "grep", "parameters": {"pattern": "func \\(s \\*Server\\)", "path": "."}}`,
			calls:   []call{{"grep", `{"pattern":"func \\(s \\*Server\\)","path":"."}`}},
		},
		{
			name: "openai shape with arguments in a string",
			content: `Let me check the entry point.
{"id": "call_8f2a", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"cmd/lathe/main.go\", \"offset\": 40, \"limit\": 80}"}}`,
			calls: []call{{"read_file", `{"path":"cmd/lathe/main.go","offset":40,"limit":80}`}},
			rest:  "Let me check the entry point.",
		},
		{
			name: "list in a tool_call fence with a trailing remark",
			content: md(`I need to see both files before I change anything.

‵‵‵tool_call
[
  {"name": "read_file", "arguments": {"path": "go.mod"}},
  {"name": "read_file", "arguments": {"path": "go.sum", "limit": 20}}
]
‵‵‵

Once I have them I'll update the dependency.`),
			calls: []call{{"read_file", `{"path":"go.mod"}`}, {"read_file", `{"path":"go.sum","limit":20}`}},
			rest:  "I need to see both files before I change anything.\n\nOnce I have them I'll update the dependency.",
		},
		{
			name:    "bare list inside a sentence",
			content: `Running the tests and listing the package: [{"name": "shell", "arguments": {"command": "go test ./..."}}, {"name": "list_dir", "arguments": {"path": "pkg"}}] then I'll report back.`,
			calls:   []call{{"shell", `{"command":"go test ./..."}`}, {"list_dir", `{"path":"pkg"}`}},
			rest:    "Running the tests and listing the package: then I'll report back.",
		},
		{
			name:    "name without arguments",
			content: `{"name": "list_dir"}`,
			calls:   []call{{"list_dir", `{}`}},
		},
		{
			name: "pretty-printed in a bare fence, key order kept",
			content: md(`Applying the fix:

‵‵‵
{
  "name": "edit_file",
  "arguments": {
    "path": "server.go",
    "old_string": "if err != nil {\n\treturn err\n}",
    "new_string": "if err != nil {\n\treturn fmt.Errorf(\"serve: %w\", err)\n}",
    "replace_all": false
  }
}
‵‵‵`),
			calls: []call{{"edit_file", `{"path":"server.go","old_string":"if err != nil {\n\treturn err\n}","new_string":"if err != nil {\n\treturn fmt.Errorf(\"serve: %w\", err)\n}","replace_all":false}`}},
			rest:  "Applying the fix:",
		},
		{
			name:    "JSON file content stays a string",
			content: `{"name": "write_file", "arguments": {"path": "cfg/default.json", "content": "{\n  \"port\": 8080,\n  \"tls\": {\"enabled\": true}\n}\n"}}`,
			calls:   []call{{"write_file", `{"path":"cfg/default.json","content":"{\n  \"port\": 8080,\n  \"tls\": {\"enabled\": true}\n}\n"}`}},
		},
		{
			name:    "nested objects and arrays in arguments",
			content: `{"name": "edit_file", "arguments": {"path": "a.json", "edits": [{"old": "}", "new": "]"}], "meta": {"zeta": 1, "alpha": [true, null, -1.5e3]}}}`,
			calls:   []call{{"edit_file", `{"path":"a.json","edits":[{"old":"}","new":"]"}],"meta":{"zeta":1,"alpha":[true,null,-1.5e3]}}`}},
		},
		{
			name: "unicode prose and path",
			content: md(`Je vais lire le fichier « résumé » 📄

‵‵‵json
{"name": "read_file", "arguments": {"path": "docs/résumé.md"}}
‵‵‵

然后我会总结。`),
			calls: []call{{"read_file", `{"path":"docs/résumé.md"}`}},
			rest:  "Je vais lire le fichier « résumé » 📄\n\n然后我会总结。",
		},
		{
			name:    "CRLF line endings",
			content: "Let me run the tests.\r\n\r\n```json\r\n{\"name\": \"shell\", \"arguments\": {\"command\": \"go test ./...\"}}\r\n```\r\n\r\nThen I'll summarise.",
			calls:   []call{{"shell", `{"command":"go test ./..."}`}},
			rest:    "Let me run the tests.\r\n\r\nThen I'll summarise.",
		},
		{
			name: "two fences with prose between",
			content: md(`First the handler:

‵‵‵json
{"name": "read_file", "arguments": {"path": "handler.go"}}
‵‵‵

And its test:

‵‵‵json
{"name": "read_file", "arguments": {"path": "handler_test.go"}}
‵‵‵`),
			calls: []call{{"read_file", `{"path":"handler.go"}`}, {"read_file", `{"path":"handler_test.go"}`}},
			rest:  "First the handler:\n\nAnd its test:",
		},
		{
			name:    "inside a sentence",
			content: `Running {"name": "shell", "arguments": {"command": "gofmt -l ."}} now.`,
			calls:   []call{{"shell", `{"command":"gofmt -l ."}`}},
			rest:    "Running now.",
		},
		{
			name:    "null arguments",
			content: `{"name": "list_dir", "arguments": null}`,
			calls:   []call{{"list_dir", `{}`}},
		},
		{
			name:    "empty string arguments",
			content: `{"type": "function", "function": {"name": "list_dir", "arguments": ""}}`,
			calls:   []call{{"list_dir", `{}`}},
		},
		{
			name:    "arguments string with spacing",
			content: `{"function": {"name": "glob", "arguments": " { \"pattern\" : \"**/*.go\" } "}}`,
			calls:   []call{{"glob", `{"pattern":"**/*.go"}`}},
		},
		{
			name:    "stray closing tag",
			content: "Reading.\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}\n</tool_call>",
			calls:   []call{{"read_file", `{"path":"a.go"}`}},
			rest:    "Reading.",
		},
		{
			name:    "prefixed name in another case",
			content: `{"name": "functions.Read_File", "arguments": {"path": "README.md"}}`,
			calls:   []call{{"read_file", `{"path":"README.md"}`}},
		},
		{
			name:    "llama python tag",
			content: `<|python_tag|>{"name": "grep", "parameters": {"pattern": "TODO"}}`,
			calls:   []call{{"grep", `{"pattern":"TODO"}`}},
		},
		{
			name:    "unclosed fence at the end",
			content: md("Reading it.\n‵‵‵json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}\n"),
			calls:   []call{{"read_file", `{"path":"a.go"}`}},
			rest:    "Reading it.",
		},
		{
			name:    "tilde fence, indented",
			content: "  ~~~json\n  {\"name\": \"glob\", \"arguments\": {\"pattern\": \"*.md\"}}\n  ~~~\nDone.",
			calls:   []call{{"glob", `{"pattern":"*.md"}`}},
			rest:    "Done.",
		},
		{
			name:    "fence indented in a list item",
			content: md("Plan:\n1. Look at the layout.\n    ‵‵‵json\n    {\"name\": \"list_dir\", \"arguments\": {\"path\": \".\"}}\n    ‵‵‵\n2. Then read the main file."),
			calls:   []call{{"list_dir", `{"path":"."}`}},
			rest:    "Plan:\n1. Look at the layout.\n\n2. Then read the main file.",
		},
		{
			name: "several objects in one fence",
			content: md(`‵‵‵json
{"name": "read_file", "arguments": {"path": "a.go"}}
{"name": "read_file", "arguments": {"path": "b.go"}}
‵‵‵`),
			calls: []call{{"read_file", `{"path":"a.go"}`}, {"read_file", `{"path":"b.go"}`}},
		},
		{
			name: "call after a code example",
			content: md(`The current handler looks like this:

‵‵‵go
func (h *Handler) Serve(w http.ResponseWriter, r *http.Request) {
	json.NewEncoder(w).Encode(map[string]string{"name": "read_file"})


}
‵‵‵

I'll find where it is registered.

‵‵‵json
{"name": "grep", "arguments": {"pattern": "Serve\\(", "include": "*.go"}}
‵‵‵`),
			calls: []call{{"grep", `{"pattern":"Serve\\(","include":"*.go"}`}},
			rest: md(`The current handler looks like this:

‵‵‵go
func (h *Handler) Serve(w http.ResponseWriter, r *http.Request) {
	json.NewEncoder(w).Encode(map[string]string{"name": "read_file"})


}
‵‵‵

I'll find where it is registered.`),
		},
		{
			name:    "unregistered call left, registered one taken",
			content: "{\"name\": \"search_web\", \"arguments\": {\"query\": \"x\"}}\n\n\n\n{\"name\": \"list_dir\", \"arguments\": {}}\n\nok",
			calls:   []call{{"list_dir", `{}`}},
			rest:    "{\"name\": \"search_web\", \"arguments\": {\"query\": \"x\"}}\n\nok",
		},
	}
}

func TestFindJSON(t *testing.T) { runFindCases(t, jsonCases()) }
