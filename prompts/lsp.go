package prompts

// Diagnostics is added to the result of a call that changed files: the
// problems the change brought into them, as the language servers named
// found them, and how many more there are.
func Diagnostics(servers, lines []string, more int) string {
	return "\n\n" + note("diagnostics", struct {
		Servers, Lines []string
		More           int
	}{servers, lines, more})
}
