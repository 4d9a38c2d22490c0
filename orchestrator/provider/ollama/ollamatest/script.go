package ollamatest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// LoadScript reads a JSON array of replies, as a testscript .txtar file holds
// them, for example:
//
//	[
//	  {"thinking": "I should look.", "tool_calls": [{"name": "read_file", "arguments": {"path": "a.go"}}]},
//	  {"content": "Done.", "hang": true, "after_chunks": 1}
//	]
//
// Unknown keys are errors (a typo must not pass silently), and so is every
// reply that fails Reply.Validate; errors name the reply and, for syntax
// errors, the line and column.
func LoadScript(r io.Reader) ([]Reply, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("ollamatest: read script: %w", err)
	}
	raws, lines, err := splitArray(data)
	if err != nil {
		return nil, fmt.Errorf("ollamatest: script: %w", err)
	}
	replies := make([]Reply, 0, len(raws))
	for i, raw := range raws {
		reply, err := decodeReply(raw)
		if err != nil {
			return nil, fmt.Errorf("ollamatest: script reply %d (line %d): %w", i, lines[i], err)
		}
		replies = append(replies, reply)
	}
	return replies, nil
}

// splitArray splits a JSON array into its elements and the line each starts on.
func splitArray(data []byte) ([]json.RawMessage, []int, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return nil, nil, fmt.Errorf("want a JSON array of replies, not %s", typeErr.Value)
		}
		return nil, nil, describeJSONError(data, err)
	}
	// data is valid: walk it again for where each element starts.
	dec := json.NewDecoder(bytes.NewReader(data))
	_, _ = dec.Token() // [
	lines := make([]int, 0, len(raws))
	for dec.More() {
		var raw json.RawMessage
		_ = dec.Decode(&raw)
		start := int(dec.InputOffset()) - len(raw) // raw holds the exact bytes
		lines = append(lines, bytes.Count(data[:start], []byte("\n"))+1)
	}
	return raws, lines, nil
}

func decodeReply(raw json.RawMessage) (Reply, error) {
	var reply Reply
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&reply); err != nil {
		return Reply{}, err
	}
	for i, c := range reply.ToolCalls {
		var compact bytes.Buffer
		if json.Compact(&compact, c.Arguments) == nil {
			reply.ToolCalls[i].Arguments = compact.Bytes()
		}
	}
	return reply, reply.Validate()
}

// describeJSONError adds the line and column to a syntax error.
func describeJSONError(data []byte, err error) error {
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) {
		return err
	}
	bad := min(max(int(syntax.Offset)-1, 0), len(data)) // the offending byte
	line := bytes.Count(data[:bad], []byte("\n")) + 1
	col := bad - bytes.LastIndexByte(data[:bad], '\n')
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}
