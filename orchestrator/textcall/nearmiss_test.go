package textcall

import "testing"

func nearMissCases() []findCase {
	return []findCase{
		nearMiss("empty", ""),
		nearMiss("whitespace", " \n\t\r\n"),
		nearMiss("prose naming tools", "I would use read_file to open it, then edit_file to change the import."),
		nearMiss("call syntax in inline code", md("You can run ‵read_file(path)‵ yourself, or ‵shell(command=\"go test\")‵.")),
		nearMiss("call object in inline code", md("Send ‵{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}‵ to read a file.")),
		nearMiss("fence written on one line", md("‵‵‵json {\"name\": \"read_file\", \"arguments\": {}}‵‵‵")),
		nearMiss("unregistered, bare", `{"name": "search_web", "arguments": {"query": "golang context cancel"}}`),
		nearMiss("unregistered, fenced", md("Let me search.\n\n‵‵‵json\n{\"name\": \"search_web\", \"arguments\": {\"query\": \"x\"}}\n‵‵‵")),
		nearMiss("unregistered, tagged", "<tool_call>\n{\"name\": \"search_web\", \"arguments\": {\"query\": \"x\"}}\n</tool_call>"),
		nearMiss("unregistered, xml", "<tool_call>\n<function=search_web>\n<parameter=query>\nx\n</parameter>\n</function>\n</tool_call>"),
		nearMiss("unregistered, mistral list", `[TOOL_CALLS][{"name": "search_web", "arguments": {"query": "x"}}]`),
		nearMiss("unregistered, mistral args", `[TOOL_CALLS]search_web[ARGS]{"query": "x"}`),
		nearMiss("unregistered with a prefix", `{"name": "functions.search_web", "arguments": {}}`),
		nearMiss("one unregistered call in a list", `[{"name": "read_file", "arguments": {"path": "a.go"}}, {"name": "search_web", "arguments": {"query": "x"}}]`),
		nearMiss("one unregistered call in a block", "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {}}\n{\"name\": \"search_web\", \"arguments\": {}}\n</tool_call>"),
		nearMiss("package.json in a fence", md(`Here is a minimal package.json:

‵‵‵json
{
  "name": "read_file",
  "version": "1.0.0",
  "main": "index.js"
}
‵‵‵`)),
		nearMiss("package.json bare", `{"name": "read_file", "version": "1.0.0"}`),
		nearMiss("tool definition", `{"type": "function", "function": {"name": "read_file", "description": "Read a file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}`),
		nearMiss("schema echoed as parameters", `{"name": "read_file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}`),
		nearMiss("array of people", `The team: [{"name": "Ada"}, {"name": "Grace"}]`),
		nearMiss("array of records named like tools", `[{"name": "shell", "email": "shell@example.com"}]`),
		nearMiss("wrapper object", `{"tool_calls": [{"name": "read_file", "arguments": {"path": "a.go"}}]}`),
		nearMiss("trailing comma", `{"name": "read_file", "arguments": {"path": "a.go",}}`),
		nearMiss("single quotes", `{'name': 'read_file', 'arguments': {'path': 'a.go'}}`),
		nearMiss("truncated", `I'll read it: {"name": "read_file", "arguments": {"path": "a.go"}`),
		nearMiss("truncated in a fence", md("‵‵‵json\n{\"name\": \"read_file\", \"arguments\": {\"path\":\n‵‵‵")),
		nearMiss("object in Go code", md(`Here's how the dispatcher decodes a call:

‵‵‵go
var raw = []byte(‵{"name": "read_file", "arguments": {"path": "a.go"}}‵)
‵‵‵`)),
		nearMiss("object literal in JavaScript", md("‵‵‵js\nconst call = {\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}};\n‵‵‵")),
		nearMiss("python code alone", md("‵‵‵python\n{\"name\": \"shell\", \"arguments\": {\"command\": \"rm -rf build\"}}\n‵‵‵")),
		nearMiss("shell code alone", md("‵‵‵bash\n{\"name\": \"shell\", \"arguments\": {\"command\": \"make\"}}\n‵‵‵")),
		nearMiss("tags in code", md("‵‵‵python\nprint('<tool_call>{\"name\": \"shell\", \"arguments\": {}}</tool_call>')\n‵‵‵")),
		nearMiss("json fence with a comment", md("‵‵‵json\n// read the file\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}\n‵‵‵")),
		nearMiss("json fence with a call and another object", md("‵‵‵json\n{\"name\": \"read_file\", \"arguments\": {}}\n{\"name\": \"Ada\", \"born\": 1815}\n‵‵‵")),
		nearMiss("call inside a thinking block", "<think>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}\n</think>\nThe file is probably fine."),
		nearMiss("unclosed thinking block", "<think>\nI'll call {\"name\": \"shell\", \"arguments\": {\"command\": \"make\"}} next"),
		nearMiss("xml function not closed", "<function=read_file>\n<parameter=path>\na.go\n</parameter>\n"),
		nearMiss("xml parameter not closed", "<tool_call>\n<function=write_file>\n<parameter=path>\na.go\n</function>\n</tool_call>"),
		nearMiss("xml text between parameters", "<function=read_file>\nI think the path is\n<parameter=path>\na.go\n</parameter>\n</function>"),
		nearMiss("xml parameter given twice", "<function=read_file>\n<parameter=path>\na.go\n</parameter>\n<parameter=path>\nb.go\n</parameter>\n</function>"),
		nearMiss("xml without a name", "<function=>\n</function>"),
		nearMiss("mistral marker then prose", "[TOOL_CALLS] I will now call the tool."),
		nearMiss("mistral list truncated", `[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "a.go"}}`),
		nearMiss("mistral args marker missing", `[TOOL_CALLS]read_file{"path": "a.go"}`),
		nearMiss("mistral args not an object", `[TOOL_CALLS]read_file[ARGS]"a.go"`),
		nearMiss("arguments a plain string", `{"name": "shell", "arguments": "go test ./..."}`),
		nearMiss("arguments an array", `{"name": "shell", "arguments": ["go", "test"]}`),
		nearMiss("arguments and parameters both", `{"name": "shell", "arguments": {"command": "ls"}, "parameters": {"command": "rm -rf /"}}`),
		nearMiss("name given twice", `{"name": "read_file", "name": "shell", "arguments": {"command": "ls"}}`),
		nearMiss("type not function", `{"type": "tool", "name": "read_file", "arguments": {}}`),
		nearMiss("id an object", `{"id": {"n": 1}, "name": "read_file", "arguments": {}}`),
		nearMiss("name not a string", `{"name": ["read_file"], "arguments": {}}`),
		nearMiss("name and function both", `{"name": "read_file", "function": {"name": "shell", "arguments": {}}}`),
		nearMiss("extra key in function", `{"type": "function", "function": {"name": "read_file", "arguments": {"path": "a"}, "strict": true}}`),
		nearMiss("function arguments not JSON", `{"function": {"name": "read_file", "arguments": "{path: a}"}}`),
		nearMiss("code fence inside a block", md("<tool_call>\n‵‵‵go\n{\"name\": \"read_file\", \"arguments\": {}}\n‵‵‵\n</tool_call>")),
		nearMiss("tags named in prose", "Qwen wraps calls in <tool_call></tool_call> tags."),
		nearMiss("tag holding prose", "<tool_call>\nI will read the file a.go\n</tool_call>"),
		nearMiss("empty object and lists", "{} [] [[]] [{}]"),
		nearMiss("brackets in prose", "See [the docs](https://go.dev) and {braces}, [1, 2] and {\"a\": 1}."),
		nearMiss("python tag with a builtin call", `<|python_tag|>brave_search.call(query="go 1.26")`),
		nearMiss("function name as a string", `{"function": "read_file", "arguments": {"path": "a.go"}}`),
	}
}

func TestFindNearMisses(t *testing.T) { runFindCases(t, nearMissCases()) }
