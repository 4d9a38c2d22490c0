package orchestrator

import "strings"

// sedReadsOnly reports whether the script of a sed command (its arguments,
// with -e and -f already refused) only reads and prints: no "e" command
// or s///e flag, which run a command, and no "w" or "W" command or s///w
// flag, which write a file. With --sandbox, GNU sed refuses those itself.
// A script it does not understand counts as one that does not.
func sedReadsOnly(args []string) bool {
	script, found := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--sandbox":
			return true
		case a == "--":
			if i+1 < len(args) && !found {
				script, found = args[i+1], true
			}
			i = len(args)
		case a == "-l" || a == "--line-length":
			i++ // its value
		case strings.HasPrefix(a, "-") && a != "-":
			// Other options take no value, or take it attached (-l5,
			// --line-length=5).
		case !found:
			script, found = a, true
		}
	}
	return found && sedScriptReadsOnly(script)
}

// sedScriptReadsOnly scans a sed script as GNU sed reads it.
func sedScriptReadsOnly(s string) bool {
	p := &sedParser{s: s}
	for {
		p.skip(" \t\n;")
		if p.done() {
			return true
		}
		if p.peek() == '#' {
			p.toEOL()
			continue
		}
		if !p.address() {
			return false
		}
		p.skip(" \t")
		if p.peek() == '!' {
			p.i++
			p.skip(" \t")
		}
		if p.done() || !p.command() {
			return false
		}
	}
}

type sedParser struct {
	s string
	i int
}

func (p *sedParser) done() bool { return p.i >= len(p.s) }

func (p *sedParser) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}

func (p *sedParser) skip(set string) {
	for !p.done() && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *sedParser) digits() bool {
	start := p.i
	for !p.done() && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// toEOL skips to the end of the line, or of the script.
func (p *sedParser) toEOL() {
	if n := strings.IndexByte(p.s[p.i:], '\n'); n >= 0 {
		p.i += n
	} else {
		p.i = len(p.s)
	}
}

// address reads none, one or two addresses.
func (p *sedParser) address() bool {
	if !p.oneAddress(false) {
		return false
	}
	p.skip(" \t")
	if p.peek() != ',' {
		return true
	}
	p.i++
	p.skip(" \t")
	return p.oneAddress(true)
}

// oneAddress reads an address, if one is there (the second of two must
// be): a line number, first~step, $, /regex/ or \cregexc with I and M
// after it, and for the second +N or ~N.
func (p *sedParser) oneAddress(second bool) bool {
	switch c := p.peek(); {
	case c >= '0' && c <= '9':
		p.digits()
		if p.peek() == '~' {
			p.i++
			return p.digits()
		}
		return true
	case c == '$':
		p.i++
		return true
	case second && (c == '+' || c == '~'):
		p.i++
		return p.digits()
	case c == '/' || c == '\\':
		if c == '\\' {
			p.i++
		}
		if p.done() || p.peek() == '\n' {
			return false
		}
		delim := p.s[p.i]
		p.i++
		if !p.delimited(delim) {
			return false
		}
		p.skip("IM")
		return true
	}
	return !second
}

// delimited skips to past the next delim not escaped by a backslash.
func (p *sedParser) delimited(delim byte) bool {
	for !p.done() {
		switch p.s[p.i] {
		case '\\':
			p.i += 2
			continue
		case delim:
			p.i++
			return true
		}
		p.i++
	}
	return false
}

// command reads one command and what goes with it, reporting false for
// one that runs or writes, or that it does not know.
func (p *sedParser) command() bool {
	c := p.s[p.i]
	p.i++
	switch c {
	case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		return true
	case 'l', 'L', 'q', 'Q':
		p.skip(" \t")
		p.digits()
		return true
	case ':', 'b', 't', 'T', 'v':
		p.skip(" \t")
		for !p.done() && p.s[p.i] != ';' && p.s[p.i] != '\n' && p.s[p.i] != '}' {
			p.i++
		}
		return true
	case 'a', 'i', 'c', 'r', 'R':
		// Text to add, or a file to read: to the end of the line, lines
		// ending in a backslash going on.
		for {
			p.toEOL()
			if p.i == 0 || p.done() || p.s[p.i-1] != '\\' {
				return true
			}
			p.i++
		}
	case 's':
		return p.substitute()
	case 'y':
		if p.done() {
			return false
		}
		delim := p.s[p.i]
		p.i++
		return p.delimited(delim) && p.delimited(delim)
	}
	return false // e, w, W, or unknown
}

// substitute reads s/regex/replacement/flags; the e and w flags run a
// command and write a file.
func (p *sedParser) substitute() bool {
	if p.done() || p.peek() == '\n' || p.peek() == '\\' {
		return false
	}
	delim := p.s[p.i]
	p.i++
	if !p.delimited(delim) || !p.delimited(delim) {
		return false
	}
	for !p.done() {
		switch c := p.s[p.i]; {
		case c == ';' || c == '\n' || c == '}' || c == ' ' || c == '\t':
			return true
		case strings.IndexByte("gpiImM", c) >= 0 || c >= '0' && c <= '9':
			p.i++
		default:
			return false // e, w, or unknown
		}
	}
	return true
}
