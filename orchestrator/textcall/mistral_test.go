package textcall

import "testing"

func mistralCases() []findCase {
	return []findCase{
		{
			name:    "list",
			content: `[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "a.go"}}]`,
			calls:   []call{{"read_file", `{"path":"a.go"}`}},
		},
		{
			name:    "list of two after prose",
			content: "I'll check both files.\n\n[TOOL_CALLS] [{\"name\": \"read_file\", \"arguments\": {\"path\": \"go.mod\"}}, {\"name\": \"list_dir\", \"arguments\": {\"path\": \"internal\"}}]",
			calls:   []call{{"read_file", `{"path":"go.mod"}`}, {"list_dir", `{"path":"internal"}`}},
			rest:    "I'll check both files.",
		},
		{
			name:    "name and args",
			content: `[TOOL_CALLS]read_file[ARGS]{"path": "a.go"}`,
			calls:   []call{{"read_file", `{"path":"a.go"}`}},
		},
		{
			name:    "name and args repeated",
			content: `[TOOL_CALLS]read_file[ARGS]{"path": "a.go"}[TOOL_CALLS]grep[ARGS]{"pattern": "TODO", "path": "internal"}`,
			calls:   []call{{"read_file", `{"path":"a.go"}`}, {"grep", `{"pattern":"TODO","path":"internal"}`}},
		},
		{
			name:    "call id",
			content: `[TOOL_CALLS]list_dir[CALL_ID]a1B2c3D4e[ARGS]{"path": "."}`,
			calls:   []call{{"list_dir", `{"path":"."}`}},
		},
		{
			name:    "after prose with a remark",
			content: "Let me look at the config.\n[TOOL_CALLS]read_file[ARGS]{\"path\": \"config.toml\"}\nI'll report what I find.",
			calls:   []call{{"read_file", `{"path":"config.toml"}`}},
			rest:    "Let me look at the config.\n\nI'll report what I find.",
		},
	}
}

func TestFindMistral(t *testing.T) { runFindCases(t, mistralCases()) }
