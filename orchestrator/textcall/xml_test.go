package textcall

import "testing"

func xmlCases() []findCase {
	return []findCase{
		{
			name: "qwen3-coder in tags",
			content: `I'll create the file.

<tool_call>
<function=write_file>
<parameter=path>
hello.txt
</parameter>
<parameter=content>
Hello World
</parameter>
</function>
</tool_call>`,
			calls: []call{{"write_file", `{"path":"hello.txt","content":"Hello World"}`}},
			rest:  "I'll create the file.",
		},
		{
			name: "without tags",
			content: `<function=read_file>
<parameter=path>
src/lib.rs
</parameter>
</function>`,
			calls: []call{{"read_file", `{"path":"src/lib.rs"}`}},
		},
		{
			name: "code with blank lines, braces and angle brackets",
			content: `<tool_call>
<function=write_file>
<parameter=path>
main.go
</parameter>
<parameter=content>
package main

import "fmt"

func main() {
	if x := 1; x < 2 {
		fmt.Println("<ok>")
	}
}

</parameter>
</function>
</tool_call>
I wrote main.go.`,
			calls: []call{{"write_file", `{"path":"main.go","content":"package main\n\nimport \"fmt\"\n\nfunc main() {\n\tif x := 1; x < 2 {\n\t\tfmt.Println(\"<ok>\")\n\t}\n}\n"}`}},
			rest:  "I wrote main.go.",
		},
		{
			name: "several blocks and a trailing remark",
			content: `Let me look at both.
<tool_call>
<function=read_file>
<parameter=path>
a.go
</parameter>
</function>
</tool_call>
<tool_call>
<function=grep>
<parameter=pattern>
TODO|FIXME
</parameter>
<parameter=ignore_case>
true
</parameter>
</function>
</tool_call>
That should be enough.`,
			calls: []call{{"read_file", `{"path":"a.go"}`}, {"grep", `{"pattern":"TODO|FIXME","ignore_case":"true"}`}},
			rest:  "Let me look at both.\n\nThat should be enough.",
		},
		{
			name: "no type guessing but JSON values kept",
			content: `<tool_call>
<function=edit_file>
<parameter=path>
cfg.toml
</parameter>
<parameter=limit>
10
</parameter>
<parameter=edits>
[{"old": "a", "new": "b"}]
</parameter>
<parameter=options>
{"zeta": true, "alpha": null}
</parameter>
</function>
</tool_call>`,
			calls: []call{{"edit_file", `{"path":"cfg.toml","limit":"10","edits":[{"old":"a","new":"b"}],"options":{"zeta":true,"alpha":null}}`}},
		},
		{
			name:    "CRLF",
			content: "Reading.\r\n<tool_call>\r\n<function=read_file>\r\n<parameter=path>\r\nsrc\\main.rs\r\n</parameter>\r\n</function>\r\n</tool_call>\r\n",
			calls:   []call{{"read_file", `{"path":"src\\main.rs"}`}},
			rest:    "Reading.",
		},
		{
			name: "parameter holding a code fence",
			content: md(`Writing the README.

<tool_call>
<function=write_file>
<parameter=path>
README.md
</parameter>
<parameter=content>
# lathe

‵‵‵sh
go install ./...
‵‵‵
</parameter>
</function>
</tool_call>`),
			calls: []call{{"write_file", "{\"path\":\"README.md\",\"content\":\"# lathe\\n\\n```sh\\ngo install ./...\\n```\"}"}},
			rest:  "Writing the README.",
		},
		{
			name:    "on one line",
			content: "<function=grep><parameter=pattern>func main</parameter><parameter=path>.</parameter></function>",
			calls:   []call{{"grep", `{"pattern":"func main","path":"."}`}},
		},
		{
			name:    "no parameters",
			content: "<tool_call>\n<function=list_dir>\n</function>\n</tool_call>",
			calls:   []call{{"list_dir", `{}`}},
		},
		{
			name:    "only one newline stripped at each end",
			content: "<function=write_file>\n<parameter=path>\nx.txt\n</parameter>\n<parameter=content>\n\n  spaced  \n\n</parameter>\n</function>",
			calls:   []call{{"write_file", `{"path":"x.txt","content":"\n  spaced  \n"}`}},
		},
		{
			name:    "in an xml fence",
			content: md("Here:\n‵‵‵xml\n<function=read_file>\n<parameter=path>\nindex.html\n</parameter>\n</function>\n‵‵‵"),
			calls:   []call{{"read_file", `{"path":"index.html"}`}},
			rest:    "Here:",
		},
		{
			name:    "prefixed function name",
			content: "<function=functions.shell>\n<parameter=command>\ngo vet ./...\n</parameter>\n</function>",
			calls:   []call{{"shell", `{"command":"go vet ./..."}`}},
		},
	}
}

func TestFindFunctionXML(t *testing.T) { runFindCases(t, xmlCases()) }
