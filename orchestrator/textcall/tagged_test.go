package textcall

import "testing"

func taggedCases() []findCase {
	return []findCase{
		{
			name: "qwen block after prose",
			content: `I'll start by looking at the project layout.
<tool_call>
{"name": "list_dir", "arguments": {"path": "."}}
</tool_call>`,
			calls: []call{{"list_dir", `{"path":"."}`}},
			rest:  "I'll start by looking at the project layout.",
		},
		{
			name: "several blocks",
			content: `<tool_call>
{"name": "read_file", "arguments": {"path": "go.mod"}}
</tool_call>
<tool_call>
{"name": "glob", "arguments": {"pattern": "**/*_test.go"}}
</tool_call>`,
			calls: []call{{"read_file", `{"path":"go.mod"}`}, {"glob", `{"pattern":"**/*_test.go"}`}},
		},
		{
			name:    "closing tag missing at the end",
			content: "Checking.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"main.go\"}}\n",
			calls:   []call{{"read_file", `{"path":"main.go"}`}},
			rest:    "Checking.",
		},
		{
			name: "closing tag missing before the next block",
			content: `<tool_call>
{"name": "read_file", "arguments": {"path": "a.go"}}
<tool_call>
{"name": "read_file", "arguments": {"path": "b.go"}}
</tool_call>`,
			calls: []call{{"read_file", `{"path":"a.go"}`}, {"read_file", `{"path":"b.go"}`}},
		},
		{
			name:    "parameters key and an id",
			content: `<tool_call>{"id": 0, "name": "shell", "parameters": {"command": "ls -la", "timeout": 30}}</tool_call>`,
			calls:   []call{{"shell", `{"command":"ls -la","timeout":30}`}},
		},
		{
			name: "unregistered block stays",
			content: `Let me look.
<tool_call>
{"name": "read_file", "arguments": {"path": "notes.txt"}}
</tool_call>
<tool_call>
{"name": "search_web", "arguments": {"query": "latest go release"}}
</tool_call>`,
			calls: []call{{"read_file", `{"path":"notes.txt"}`}},
			rest: `Let me look.

<tool_call>
{"name": "search_web", "arguments": {"query": "latest go release"}}
</tool_call>`,
		},
		{
			name: "answer after a thinking prefix whose opening tag the template wrote",
			content: `The user wants the tests run. I could call {"name": "shell", "arguments": {"command": "go test"}} but the Makefile may have a target.
</think>

<tool_call>
{"name": "read_file", "arguments": {"path": "Makefile"}}
</tool_call>`,
			calls: []call{{"read_file", `{"path":"Makefile"}`}},
			rest: `The user wants the tests run. I could call {"name": "shell", "arguments": {"command": "go test"}} but the Makefile may have a target.
</think>`,
		},
		{
			name:    "call after a thinking block",
			content: "<think>\nMaybe {\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}} first.\n</think>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"b.go\"}}",
			calls:   []call{{"read_file", `{"path":"b.go"}`}},
			rest:    "<think>\nMaybe {\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}} first.\n</think>",
		},
		{
			name:    "block inside a fence",
			content: md("‵‵‵\n<tool_call>\n{\"name\": \"list_dir\", \"arguments\": {\"path\": \"cmd\"}}\n</tool_call>\n‵‵‵\n"),
			calls:   []call{{"list_dir", `{"path":"cmd"}`}},
		},
		{
			name:    "fence inside a block",
			content: md("Reading the module file.\n<tool_call>\n‵‵‵json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"go.mod\"}}\n‵‵‵\n</tool_call>"),
			calls:   []call{{"read_file", `{"path":"go.mod"}`}},
			rest:    "Reading the module file.",
		},
		{
			name:    "list inside a block",
			content: `<tool_call>[{"name": "glob", "arguments": {"pattern": "*.go"}}, {"name": "grep", "arguments": {"pattern": "panic\\("}}]</tool_call>`,
			calls:   []call{{"glob", `{"pattern":"*.go"}`}, {"grep", `{"pattern":"panic\\("}`}},
		},
	}
}

func TestFindToolCallTags(t *testing.T) { runFindCases(t, taggedCases()) }
