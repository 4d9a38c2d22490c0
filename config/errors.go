package config

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Error is a configuration problem: a file that does not parse, a key that
// does not exist, a value of the wrong type or out of range, or a bad
// environment variable. It is a usage error (exit 2).
type Error struct {
	File         string // empty for the environment and flags
	Line, Column int    // 0 when unknown
	Key          string // dotted TOML key, or the environment variable
	Msg          string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
			if e.Column > 0 {
				fmt.Fprintf(&b, ":%d", e.Column)
			}
		}
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

var (
	errBadDuration = errors.New(`not a duration: use a Go duration such as "90s", "30m" or "1h"`)
	errBadSeconds  = errors.New(`not a duration: use seconds, such as 5, or a Go duration such as "2s"`)
)

// decodeError turns go-toml's error about data into an *Error naming file,
// line and key, with a hint where the document shows what went wrong: a
// string written without quotes, a key or table set twice.
func decodeError(path string, data []byte, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		first := strict.Errors[0]
		return unknownKey(path, &first, first.Key())
	}
	var de *toml.DecodeError
	if !errors.As(err, &de) {
		return &Error{File: path, Msg: err.Error()}
	}
	e := at(path, de, de.Key())
	e.Msg = strings.TrimPrefix(de.Error(), "toml: ")
	if key, first, table, ok := duplicate(data, e.Line); ok {
		e.Key, e.Msg = key, fmt.Sprintf("set twice (first on line %d): keep one", first)
		if table {
			e.Msg = fmt.Sprintf("[%s] appears twice (first on line %d): put its keys under one", e.Key, first)
		}
	} else if hint := quoteHint(data, e.Line, e.Column); hint != "" {
		e.Msg += " (strings need quotes: " + hint + ")"
	}
	return e
}

func unknownKey(path string, de *toml.DecodeError, key []string) *Error {
	e := at(path, de, key)
	e.Msg = "unknown key"
	if s := suggest(key); s != "" {
		e.Msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return e
}

// checkTypes compares a generically decoded document with the Config's
// fields and reports the first value, in file order, of the wrong type.
func checkTypes(path string, data []byte, raw map[string]any) *Error {
	var first *Error
	walk(raw, nil, func(key []string, v any) {
		t, ok := field(key)
		if !ok || fits(t, v) {
			return // unknown keys are left to the strict decode
		}
		k := strings.Join(key, ".")
		line, col := keyPosition(data, k)
		if first == nil || line < first.Line {
			first = &Error{File: path, Line: line, Column: col, Key: k,
				Msg: "must be " + describe(t) + ", not " + describeValue(v)}
		}
	})
	return first
}

// walk calls fn for every leaf value of a generically decoded document
// that lies under a key the Config knows as a non-table field.
func walk(doc map[string]any, prefix []string, fn func(key []string, v any)) {
	for k, v := range doc {
		key := append(prefix[:len(prefix):len(prefix)], k)
		t, known := field(key)
		if sub, ok := v.(map[string]any); ok && known && isTable(t) {
			walk(sub, key, fn)
			continue
		}
		fn(key, v)
	}
}

func isTable(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t != reflect.TypeFor[Duration]() && t != reflect.TypeFor[Seconds]() ||
		t.Kind() == reflect.Map
}

// fits reports whether a generically decoded TOML value has the type the
// Go field t takes (its range is checked elsewhere).
func fits(t reflect.Type, v any) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		_, ok := v.(string)
		return ok
	case reflect.Bool:
		_, ok := v.(bool)
		return ok
	case reflect.Int, reflect.Int64:
		_, ok := v.(int64)
		return ok
	case reflect.Float64:
		switch v.(type) {
		case int64, float64:
			return true
		}
		return false
	case reflect.Slice:
		list, ok := v.([]any)
		for _, x := range list {
			if !fits(t.Elem(), x) {
				return false
			}
		}
		return ok
	case reflect.Struct:
		switch t {
		case reflect.TypeFor[Duration]():
			_, ok := v.(string)
			return ok
		case reflect.TypeFor[Seconds]():
			switch v.(type) {
			case string, int64, float64:
				return true
			}
			return false
		}
		_, ok := v.(map[string]any)
		return ok
	case reflect.Map:
		_, ok := v.(map[string]any)
		return ok
	}
	return true
}

// describe says, for people, what a field takes.
func describe(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Float64:
		return "a number"
	case reflect.Slice:
		return "a list of strings"
	case reflect.Struct:
		switch t {
		case reflect.TypeFor[Duration]():
			return `a duration such as "30m"`
		case reflect.TypeFor[Seconds]():
			return `seconds, or a duration such as "2s"`
		}
		return "a table"
	case reflect.Map:
		return "a table"
	}
	return "a valid value"
}

// describeValue says, for people, what was written.
func describeValue(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", v)
	case bool:
		return fmt.Sprint(v)
	case int64, float64:
		return fmt.Sprint(v)
	case []any:
		return "a list with other values"
	case map[string]any:
		return "a table"
	}
	return "that value"
}

func at(path string, de *toml.DecodeError, key toml.Key) *Error {
	line, col := de.Position()
	return &Error{File: path, Line: line, Column: col, Key: strings.Join(key, ".")}
}

// field finds the struct field a dotted TOML key names.
func field(key []string) (reflect.Type, bool) {
	t := reflect.TypeFor[Config]()
	for _, k := range key {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() == reflect.Map {
			t = t.Elem() // any key names an entry
			continue
		}
		if t.Kind() != reflect.Struct {
			return nil, false
		}
		f, ok := fieldByTag(t, k)
		if !ok {
			return nil, false
		}
		t = f.Type
	}
	return t, true
}

func fieldByTag(t reflect.Type, tag string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("toml"), ","); name == tag {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// suggest returns the known key closest to an unknown one, or "".
func suggest(key []string) string {
	if len(key) == 0 {
		return ""
	}
	parent, name := key[:len(key)-1], key[len(key)-1]
	t, ok := field(parent)
	for ok && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if !ok || t.Kind() != reflect.Struct {
		return ""
	}
	best, bestDist := "", 3
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		if d := distance(name, tag); d < bestDist {
			best, bestDist = tag, d
		}
	}
	if best == "" {
		return ""
	}
	return strings.Join(append(parent[:len(parent):len(parent)], best), ".")
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
