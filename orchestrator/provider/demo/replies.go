package demo

import "lathe/orchestrator/provider"

// What the demo model writes and says.

const greeting = "Hello from lathe's demo model!\n"

var writeSteps = []answer{
	{text: "I'll create **hello.txt** with a greeting.", calls: []provider.ToolCall{
		call("write_file", map[string]string{"path": "hello.txt", "content": greeting})}},
	{text: "Created **hello.txt**:\n\n```text\n" + greeting + "```\n\n" +
		"That is what a real model does with `write_file`, after you allowed it. `/undo` takes it back, " +
		"and `/permissions` shows what you allowed for the session."},
}

var fixSteps = []answer{
	{text: "Let me read the code first.", calls: []provider.ToolCall{
		call("read_file", map[string]string{"path": "greet.go"})}},
	{text: "`Greet` misspells the greeting. I'll fix it.", calls: []provider.ToolCall{
		call("edit_file", map[string]string{"path": "greet.go", "old_string": `"Helo, "`, "new_string": `"Hello, "`})}},
	{text: "Now let me check it.", calls: []provider.ToolCall{
		call("shell", map[string]string{"command": "grep -n Hello greet.go"})}},
	{text: "Fixed: `Greet` now says **Hello**.\n\n```go\nfunc Greet(name string) string {\n\treturn \"Hello, \" + name\n}\n```\n\n" +
		"With Go installed, `go test ./...` would now pass."},
}

var runSteps = []answer{
	{text: "I'll list the files with their sizes.", calls: []provider.ToolCall{
		call("shell", map[string]string{"command": "ls -l"})}},
	{text: "That ran in the sandbox: it may write only in the project, temp and caches, and has no network. " +
		"Its output is on the card above; **Ctrl+O** expands it."},
}

var tourSteps = []answer{
	{text: "Let me look around.", calls: []provider.ToolCall{call("list_dir", map[string]string{})}},
	{text: "", calls: []provider.ToolCall{call("read_file", map[string]string{"path": "README.md"})}},
	{text: tourAnswer},
}

const tourAnswer = `This is lathe's **demo model**: no model server runs, and it answers the same way whatever you write. ` +
	`The project it works in is a small sample in a temporary directory.

Things to try:

- **create hello.txt**: a write, which asks first and shows its diff
- **fix the bug**: a read, an edit and a command
- **run ls**: a command in the sandbox
- **Shift+Tab** to plan mode, then any request: a plan to approve
- ` + "`/help`" + ` for the commands, ` + "`/undo`" + ` to take a change back

For a real model, install [Ollama](https://ollama.com), pull one (` + "`ollama pull qwen3:8b`" + `, or a small one on a laptop: see the README), and run ` + "`lathe`" + `.`

const askAnswer = "In ask mode I only answer questions: this is the demo model, so the answer is always this one. " +
	"**Shift+Tab** goes to build mode, where I change files and run commands (asking you first)."
