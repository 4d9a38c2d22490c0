package prompts

import "strings"

// CommandOutput is what a command a custom command runs (!`…`) printed,
// in the request.
func CommandOutput(command, output string) string {
	return note("command_output", struct{ Command, Output string }{command, strings.TrimRight(output, "\n")})
}

// CommandNotRun stands for a command a custom command asked for that did
// not run, saying why.
func CommandNotRun(command, why string) string {
	return note("command_not_run", struct{ Command, Why string }{command, strings.TrimSpace(why)})
}

// IncludedFileLimit is how much of a file a custom command includes
// (@path), in bytes.
const IncludedFileLimit = 64 << 10

// IncludedFile is a file a custom command includes (@path); content is
// cut to IncludedFileLimit, with a note.
func IncludedFile(path, content string) string {
	text, cut := capText(content, IncludedFileLimit)
	return note("included_file", struct {
		Path, Content string
		Cut           bool
		Limit         int
	}{path, strings.TrimRight(text, "\n"), cut, IncludedFileLimit})
}

// CommandArguments follows a custom command whose file has no place for
// its arguments ($ARGUMENTS, $1…), as Claude Code adds them.
func CommandArguments(args string) string { return note("command_arguments", args) }
