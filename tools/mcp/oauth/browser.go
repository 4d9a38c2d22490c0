package oauth

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// Browser opens a URL in the user's browser: with the commands $BROWSER
// lists (separated by colons; %s in one stands for the URL, which is
// otherwise its last argument), else with the platform's opener.
type Browser struct {
	Env  string // $BROWSER
	GOOS string // runtime.GOOS
}

// Commands are the command lines Open tries, in order.
func (b Browser) Commands(url string) [][]string {
	var out [][]string
	for entry := range strings.SplitSeq(b.Env, ":") {
		args := strings.Fields(entry)
		if len(args) == 0 {
			continue
		}
		found := false
		for i, a := range args {
			a = strings.ReplaceAll(a, "%%", "\x00")
			if strings.Contains(a, "%s") {
				a = strings.ReplaceAll(a, "%s", url)
				found = true
			}
			args[i] = strings.ReplaceAll(a, "\x00", "%")
		}
		if !found {
			args = append(args, url)
		}
		out = append(out, args)
	}
	if len(out) > 0 {
		return out
	}
	switch b.GOOS {
	case "darwin":
		return [][]string{{"open", url}}
	case "windows":
		return [][]string{{"rundll32", "url.dll,FileProtocolHandler", url}}
	}
	return [][]string{{"xdg-open", url}, {"x-www-browser", url}, {"sensible-browser", url}}
}

// Open starts the first of Commands that can start, and does not wait for
// it.
func (b Browser) Open(url string) error {
	var errs []error
	for _, args := range b.Commands(url) {
		cmd := exec.Command(args[0], args[1:]...)
		if err := cmd.Start(); err != nil {
			errs = append(errs, err)
			continue
		}
		go func() { _ = cmd.Wait() }()
		return nil
	}
	return fmt.Errorf("no browser could be started (set BROWSER): %w", errors.Join(errs...))
}
