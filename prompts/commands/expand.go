package commands

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"lathe/prompts"
)

// Env is what expanding a command needs of the session.
type Env struct {
	// Read reads a file of the workspace (a path as written after "@");
	// an error leaves the "@path" as it was written.
	Read func(path string) ([]byte, error)
	// Run runs a command (as written in !`…`) and returns its output,
	// worded for the model; nil leaves !`…` as written.
	Run func(ctx context.Context, command string) string
}

var (
	// argRef is $ARGUMENTS or a positional $1…$9.
	argRef = regexp.MustCompile(`\$(ARGUMENTS|[1-9])`)
	// bang is !`command`, at a line's start or after a space.
	bang = regexp.MustCompile("(^|[\\s(])!`([^`\n]+)`")
	// at is @path, at a line's start or after a space: a path without
	// spaces, ending before closing punctuation.
	at = regexp.MustCompile(`(^|[\s(])@([^\s@` + "`" + `'"()<>]+[^\s@` + "`" + `'"()<>.,;:!?])`)
)

// Expand makes the request the command stands for, with args (what
// followed /name): $ARGUMENTS is args, $1… its words (quotes group);
// without either in the file, args follow it. Then every !`command` is
// replaced by what env.Run gives, and every @path of a file env.Read
// reads is followed by the file.
func (c Command) Expand(ctx context.Context, args string, env Env) string {
	args = strings.TrimSpace(args)
	words := splitArgs(args)
	used := false
	text := argRef.ReplaceAllStringFunc(c.Body, func(ref string) string {
		used = true
		if ref == "$ARGUMENTS" {
			return args
		}
		n, _ := strconv.Atoi(ref[1:])
		if n <= len(words) {
			return words[n-1]
		}
		return ""
	})
	text = strings.TrimSpace(text)
	if !used && args != "" {
		text += "\n\n" + prompts.CommandArguments(args)
	}
	if env.Run != nil {
		text = bang.ReplaceAllStringFunc(text, func(m string) string {
			sub := bang.FindStringSubmatch(m)
			return sub[1] + "\n" + env.Run(ctx, sub[2]) + "\n"
		})
		text = strings.TrimSpace(text)
	}
	if env.Read != nil {
		text = includeFiles(text, env.Read)
	}
	return text
}

// includeFiles adds, after the text, each file an @path names that read
// reads, once.
func includeFiles(text string, read func(string) ([]byte, error)) string {
	var files []string
	done := map[string]bool{}
	for _, m := range at.FindAllStringSubmatch(text, -1) {
		path := m[2]
		if done[path] {
			continue
		}
		done[path] = true
		b, err := read(path)
		if err != nil {
			continue
		}
		files = append(files, prompts.IncludedFile(path, string(b)))
	}
	if len(files) == 0 {
		return text
	}
	return text + "\n\n" + strings.Join(files, "\n\n")
}

// splitArgs splits args into words as a shell would for plain words:
// quotes group and are taken off.
func splitArgs(s string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}
