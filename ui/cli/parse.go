package cli

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// A command is one of lathe's commands, with its own options: it
// declares its flags, takes the words after its name, checks what it was
// given, and runs.
type command interface {
	// define declares the command's flags on fs, bound to its options.
	define(fs *pflag.FlagSet)
	// words takes the words after the command's name.
	words(args []string) error
	// check checks the flags given (fs.Changed), once parsed.
	check(fs *pflag.FlagSet) error
	run(ctx context.Context) error
}

// subcommand is a command's name ("" for a session, "sessions rm") and
// how to make it.
type subcommand struct {
	name string
	new  func(f *Factory) command
}

// lookupName returns the command named name.
func lookupName(name string) subcommand {
	i := slices.IndexFunc(subcommands, func(s subcommand) bool { return s.name == name })
	return subcommands[i]
}

// parse reads the command line into the command it asks for, made with
// f. Flags may come before or after the words that name the command; a
// flag the command does not take is refused, never ignored.
func parse(f *Factory, args []string) (command, error) {
	var help, version bool
	all := flagSet() // the flags of every command: to find the words
	all.BoolVarP(&help, "help", "h", false, "")
	all.BoolVar(&version, "version", false, "")
	owners := map[string][]string{} // flag → the commands that take it
	for _, s := range subcommands {
		fs := flagSet()
		s.new(&Factory{}).define(fs)
		fs.VisitAll(func(fl *pflag.Flag) {
			owners[fl.Name] = append(owners[fl.Name], s.name)
			if all.Lookup(fl.Name) == nil {
				all.AddFlag(fl)
			}
		})
	}
	if err := all.Parse(args); err != nil {
		return nil, flagError(err)
	}
	sub, rest, err := lookup(all.Args())
	if err != nil {
		return nil, err
	}
	cmd := sub.new(f)
	if err := cmd.words(rest); err != nil {
		return nil, err
	}
	switch {
	case help:
		return helpCommand{f}, nil
	case version:
		return versionCommand{f}, nil
	}
	fs := flagSet()
	cmd.define(fs)
	if err := refused(all, fs, sub.name, owners); err != nil {
		return nil, err
	}
	fs.BoolP("help", "h", false, "")
	fs.Bool("version", false, "")
	if err := fs.Parse(args); err != nil {
		return nil, flagError(err)
	}
	f.DirSet = fs.Changed("dir")
	if err := cmd.check(fs); err != nil {
		return nil, err
	}
	if err := f.workingDir(); err != nil {
		return nil, err
	}
	return cmd, nil
}

func flagSet() *pflag.FlagSet {
	fs := pflag.NewFlagSet("lathe", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	return fs
}

// lookup finds the command the words name, and the words left for it.
func lookup(words []string) (subcommand, []string, error) {
	if len(words) == 0 {
		return lookupName(""), nil, nil
	}
	if len(words) > 1 {
		for _, s := range subcommands {
			if s.name == words[0]+" "+words[1] {
				return s, words[2:], nil
			}
		}
	}
	for _, s := range subcommands {
		if s.name == words[0] {
			return s, words[1:], nil
		}
	}
	switch words[0] {
	case "memory":
		if len(words) == 1 {
			return subcommand{}, nil, usagef("memory: say list or rm")
		}
		return subcommand{}, nil, usagef("memory: unexpected argument %q (the subcommands of memory are list and rm)", words[1])
	case "mcp":
		return subcommand{}, nil, usagef("mcp: say what to do: lathe mcp list [--json], lathe mcp login NAME or lathe mcp logout NAME")
	case "hooks":
		return subcommand{}, nil, usagef("hooks: say what to do: lathe hooks list [--json]")
	case "skills":
		return subcommand{}, nil, usagef("skills: say what to do: lathe skills list [--json]")
	}
	var names []string
	for _, s := range subcommands {
		if first, _, _ := strings.Cut(s.name, " "); first != "" && !slices.Contains(names, first) {
			names = append(names, first)
		}
	}
	return subcommand{}, nil, usagef("unexpected argument %q: the request goes with -p (quote it), and the subcommands are %s",
		words[0], strings.Join(names, ", "))
}

// refused refuses the flags given (all) that the command named name does
// not take (fs), naming the commands that do (owners).
func refused(all, fs *pflag.FlagSet, name string, owners map[string][]string) error {
	var bad []string
	var takers []string
	all.Visit(func(fl *pflag.Flag) {
		if fs.Lookup(fl.Name) != nil || fl.Name == "help" || fl.Name == "version" {
			return
		}
		bad = append(bad, "--"+fl.Name)
		for _, o := range owners[fl.Name] {
			if first, _, _ := strings.Cut(o, " "); !slices.Contains(takers, "lathe "+first) {
				takers = append(takers, "lathe "+first)
			}
		}
	})
	switch {
	case len(bad) == 0:
		return nil
	case name != "":
		return usagef("%s: %s cannot go with it", name, strings.Join(bad, ", "))
	case slices.Contains(bad, "--json"):
		return usagef("%s: only lathe sessions takes it (with -p, use --output-format json)", strings.Join(bad, ", "))
	case len(takers) == 1:
		return usagef("%s: only %s takes it", strings.Join(bad, ", "), takers[0])
	}
	return usagef("%s: only %s and %s take it", strings.Join(bad, ", "),
		strings.Join(takers[:len(takers)-1], ", "), takers[len(takers)-1])
}

// noWords refuses the words after a command that takes none.
func noWords(name string, args []string) error {
	if len(args) > 0 {
		return usagef("%s: unexpected argument %q", name, args[0])
	}
	return nil
}

// flagError rewords pflag's errors for people: `--max-turns abc` is "a
// bad value for --max-turns", not a strconv error.
func flagError(err error) error {
	if m := badValue.FindStringSubmatch(err.Error()); m != nil {
		return usagef("%s: %q is not a valid value", m[2], m[1])
	}
	return usageError{err.Error()}
}

var badValue = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?(--[\w-]+)" flag`)

// parseAge reads a Go duration ("36h", "90m"), which may start with a
// number of days: "30d", "1d12h".
func parseAge(s string) (time.Duration, error) {
	var days time.Duration
	if n, rest, ok := strings.Cut(s, "d"); ok {
		d, err := strconv.ParseUint(n, 10, 16)
		if err != nil {
			return 0, err
		}
		days, s = time.Duration(d)*24*time.Hour, rest
		if s == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("not an age: %q", s)
	}
	return days + d, nil
}
