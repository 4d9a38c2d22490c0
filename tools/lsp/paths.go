package lsp

import (
	"net/url"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// uri is the file URI of an absolute path.
func uri(abs string) protocol.DocumentURI {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	return protocol.DocumentURI(u.String())
}

// pathOf is the path a file URI names, relative to dir (with slashes),
// and false for a URI that is not a file of dir.
func pathOf(dir string, u string) (string, bool) {
	parsed, err := url.Parse(u)
	if err != nil || parsed.Scheme != "file" {
		return "", false
	}
	rel, err := filepath.Rel(dir, filepath.FromSlash(parsed.Path))
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// absPath is the absolute path of rel, a path relative to dir.
func absPath(dir, rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }

// clip cuts s to at most n bytes, on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// oneLine joins the lines of s with spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\r", "")), " ")
}
