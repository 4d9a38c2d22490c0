package tools

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"lathe/orchestrator/provider"
)

var readParams = readFileSpec(400).params

func TestDecodeArgs(t *testing.T) {
	tests := []struct {
		name        string
		raw         string
		want        readFileArgs
		wantUnknown []string
		wantRepairs []string
		wantErr     string
	}{
		{name: "all", raw: `{"path":"a.go","offset":3,"limit":10}`, want: readFileArgs{Path: "a.go", Offset: 3, Limit: 10}},
		{name: "optional absent", raw: `{"path":"a.go"}`, want: readFileArgs{Path: "a.go"}},
		{name: "optional null", raw: `{"path":"a.go","limit":null}`, want: readFileArgs{Path: "a.go"}},
		{name: "whitespace", raw: " \n{\"path\":\"a\"} ", want: readFileArgs{Path: "a"}},
		{name: "integer as string", raw: `{"path":"a","limit":"10"}`, want: readFileArgs{Path: "a", Limit: 10},
			wantRepairs: []string{`"limit" sent as a string`}},
		{name: "integer as spaced string", raw: `{"path":"a","limit":" 12 ","offset":"2"}`, want: readFileArgs{Path: "a", Offset: 2, Limit: 12},
			wantRepairs: []string{`"offset" sent as a string`, `"limit" sent as a string`}},
		{name: "integer as float", raw: `{"path":"a","offset":7.0}`, want: readFileArgs{Path: "a", Offset: 7},
			wantRepairs: []string{`"offset" sent as a float`}},
		{name: "integer as float string", raw: `{"path":"a","offset":"7.0"}`, want: readFileArgs{Path: "a", Offset: 7},
			wantRepairs: []string{`"offset" sent as a string`}},
		{name: "JSON string holding the object", raw: `"{\"path\":\"a.go\",\"limit\":5}"`, want: readFileArgs{Path: "a.go", Limit: 5},
			wantRepairs: []string{"arguments sent as a JSON string"}},
		{name: "JSON string, spaced, with a string integer", raw: ` " {\"path\":\"a.go\",\"limit\":\"5\"} " `, want: readFileArgs{Path: "a.go", Limit: 5},
			wantRepairs: []string{"arguments sent as a JSON string", `"limit" sent as a string`}},
		{name: "JSON string holding an empty object", raw: `"{}"`, wantErr: `missing required argument "path"`},
		{name: "JSON string holding broken JSON", raw: `"{\"path\":"`, wantErr: `arguments must be a JSON object, got string "{\"path\":"`},
		{name: "JSON string holding an array", raw: `"[1]"`, wantErr: `arguments must be a JSON object, got string "[1]"`},
		{name: "JSON string twice", raw: `"\"{}\""`, wantErr: `arguments must be a JSON object, got string`},
		{name: "unknown keys", raw: `{"path":"a","foo":1,"bar":true}`, want: readFileArgs{Path: "a"}, wantUnknown: []string{"bar", "foo"}},
		{name: "keys are exact", raw: `{"path":"a","Limit":5}`, want: readFileArgs{Path: "a"}, wantUnknown: []string{"Limit"}},
		{name: "null", raw: `null`, wantErr: "arguments must be a JSON object, got null null"},
		{name: "string", raw: `"a.go"`, wantErr: `arguments must be a JSON object, got string "a.go"`},
		{name: "array", raw: `["a.go"]`, wantErr: `arguments must be a JSON object, got array ["a.go"]`},
		{name: "number", raw: `12`, wantErr: "must be a JSON object, got number 12"},
		{name: "invalid", raw: `{"path":`, wantErr: "not a valid JSON object"},
		{name: "garbage", raw: `path=a`, wantErr: "not valid JSON"},
		{name: "empty", raw: ``, wantErr: `missing required argument "path"`},
		{name: "missing", raw: `{"offset":1}`, wantErr: `missing required argument "path"`},
		{name: "required null", raw: `{"path":null}`, wantErr: `missing required argument "path"`},
		{name: "wrong type word", raw: `{"path":"a","limit":"ten"}`, wantErr: `argument "limit" must be an integer, got string "ten"`},
		{name: "wrong type fraction", raw: `{"path":"a","limit":1.5}`, wantErr: `argument "limit" must be an integer, got number 1.5`},
		{name: "wrong type path", raw: `{"path":42}`, wantErr: `argument "path" must be a string, got number 42`},
		{name: "wrong type object", raw: `{"path":{"x":1}}`, wantErr: `argument "path" must be a string, got object {"x":1}`},
		{name: "huge integer", raw: `{"path":"a","limit":1e40}`, wantErr: `argument "limit" must be an integer, got number 1e40`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rep, err := decodeArgs[readFileArgs](json.RawMessage(tt.raw), readParams)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v; want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || !slices.Equal(rep.unknown, tt.wantUnknown) || !slices.Equal(rep.repairs, tt.wantRepairs) {
				t.Fatalf("got %+v %+v; want %+v, unknown %q, repairs %q", got, rep, tt.want, tt.wantUnknown, tt.wantRepairs)
			}
		})
	}
}

func TestDecodeArgsBoolean(t *testing.T) {
	params := editFileSpec().params
	for _, tt := range []struct {
		raw    string
		want   bool
		repair bool
	}{
		{`true`, true, false}, {`false`, false, false}, {`"true"`, true, true}, {`"false"`, false, true},
		{`"TRUE"`, true, true}, {`"False"`, false, true}, {`" false "`, false, true}, {`"0"`, false, true},
	} {
		got, rep, err := decodeArgs[editFileArgs](json.RawMessage(`{"path":"a","old_string":"x","new_string":"y","replace_all":`+tt.raw+`}`), params)
		if err != nil || got.ReplaceAll != tt.want || (len(rep.repairs) == 1) != tt.repair {
			t.Errorf("replace_all %s: got %v, %+v, %v; want %v", tt.raw, got.ReplaceAll, rep, err, tt.want)
		}
		if tt.repair && rep.repairs[0] != `"replace_all" sent as a string` {
			t.Errorf("replace_all %s: repair %q", tt.raw, rep.repairs[0])
		}
	}
	_, _, err := decodeArgs[editFileArgs](json.RawMessage(`{"path":"a","old_string":"x","new_string":"y","replace_all":"yes"}`), params)
	if err == nil || err.Error() != `argument "replace_all" must be a boolean, got string "yes"` {
		t.Errorf("err = %v", err)
	}
}

// TestUnknownArgumentNote checks that ignored arguments are reported in the
// result, and that the call still runs.
func TestUnknownArgumentNote(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "hello\n"})
	res := run(t, ws, Options{}, "read_file", `{"path":"a.txt","encoding":"utf8","file":"b"}`)
	if res.IsError || !strings.Contains(res.Content, "hello") {
		t.Fatalf("call did not run: %+v", res)
	}
	if !strings.HasSuffix(res.Content, "\n\nnote: ignored unknown argument(s): encoding, file") {
		t.Fatalf("no note in %q", res.Content)
	}
}

// TestRepairsReported checks, through the tools, that a repaired call runs
// as a proper one would, and that its result lists the repairs and tells
// the model.
func TestRepairsReported(t *testing.T) {
	const two = "x := 1\nx := 1\n"
	tests := []struct {
		name, tool, args string
		want             string // in the content
		isErr            bool
		repairs          []string
		file             string // a.txt afterwards
	}{
		{name: "proper call", tool: "read_file", args: `{"path":"a.txt","limit":1}`, want: "     1\tx := 1\n(lines 1-1 of 2;", file: two},
		{name: "JSON string", tool: "read_file", args: `"{\"path\":\"a.txt\",\"limit\":1}"`, want: "     1\tx := 1\n(lines 1-1 of 2;",
			repairs: []string{"arguments sent as a JSON string"}, file: two},
		{name: "limit as string", tool: "read_file", args: `{"path":"a.txt","limit":"1"}`, want: "(lines 1-1 of 2;",
			repairs: []string{`"limit" sent as a string`}, file: two},
		{name: "false as string really is false", tool: "edit_file",
			args: `{"path":"a.txt","old_string":"x := 1","new_string":"y","replace_all":"false"}`, want: "matches 2 times", isErr: true,
			repairs: []string{`"replace_all" sent as a string`}, file: two},
		{name: "true as string", tool: "edit_file",
			args: `{"path":"a.txt","old_string":"x := 1","new_string":"y","replace_all":"TRUE"}`, want: "2 replacements",
			repairs: []string{`"replace_all" sent as a string`}, file: "y\ny\n"},
		{name: "unknown and repaired", tool: "read_file", args: `{"path":"a.txt","limit":"1","encoding":"utf8"}`,
			want: "\n\nnote: your arguments were repaired before running: \"limit\" sent as a string. " +
				"Send a JSON object whose values have the types the schema gives.\n\nnote: ignored unknown argument(s): encoding",
			repairs: []string{`"limit" sent as a string`, "ignored unknown argument(s): encoding"}, file: two},
		{name: "argument and edit repairs", tool: "edit_file",
			args:    `"{\"path\":\"a.txt\",\"old_string\":\"  x := 1 \\n  x := 1\",\"new_string\":\"  z := 2\"}"`,
			want:    "old_string matched lines 1-2 ignoring indentation",
			repairs: []string{"arguments sent as a JSON string", "old_string matched ignoring indentation"}, file: "z := 2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, map[string]string{"a.txt": two})
			res := run(t, ws, Options{}, tt.tool, tt.args)
			if res.IsError != tt.isErr || !strings.Contains(res.Content, tt.want) || !slices.Equal(res.Repairs, tt.repairs) {
				t.Fatalf("got %+v\nwant IsError=%v, content with %q, repairs %q", res, tt.isErr, tt.want, tt.repairs)
			}
			if len(tt.repairs) == 0 && strings.Contains(res.Content, "note:") {
				t.Fatalf("a proper call has a note: %q", res.Content)
			}
			if got := readString(t, filepath.Join(ws.Dir(), "a.txt")); got != tt.file {
				t.Fatalf("a.txt holds %q, want %q", got, tt.file)
			}
		})
	}
}

// toolArgTypes maps each tool to the struct it decodes its arguments into.
var toolArgTypes = map[string]any{
	"read_file":  readFileArgs{},
	"write_file": writeFileArgs{},
	"edit_file":  editFileArgs{},
	"list_dir":   listDirArgs{},
	"glob":       globArgs{},
	"grep":       grepArgs{},
	"shell":      shellArgs{},
}

// TestSpecsMatchArgStructs checks that every tool's params, which make its
// schema and decide what is required and unknown, match the json tags and
// Go types of its argument struct, so neither can drift from the other.
func TestSpecsMatchArgStructs(t *testing.T) {
	kinds := map[paramType]reflect.Kind{typeString: reflect.String, typeInteger: reflect.Int, typeBoolean: reflect.Bool}
	reg := Default(newWorkspace(t, nil), Options{})
	for _, name := range reg.Names() {
		tool, _ := reg.Lookup(name)
		typ := reflect.TypeOf(toolArgTypes[name])
		if typ == nil {
			t.Fatalf("%s: no argument struct listed", name)
		}
		fields := map[string]reflect.Kind{}
		for f := range typ.Fields() {
			fields[f.Tag.Get("json")] = f.Type.Kind()
		}
		var schema struct {
			Properties map[string]struct{ Type string } `json:"properties"`
		}
		if err := json.Unmarshal(tool.Spec().Parameters, &schema); err != nil {
			t.Fatalf("%s: schema: %v", name, err)
		}
		var names []string
		for pname, prop := range schema.Properties {
			names = append(names, pname)
			if fields[pname] != kinds[paramType(prop.Type)] {
				t.Errorf("%s: param %q has schema type %s but Go kind %s", name, pname, prop.Type, fields[pname])
			}
		}
		if len(names) != len(fields) {
			t.Errorf("%s: schema has %v, struct has %v", name, names, fields)
		}
	}
}

func TestSpecsStable(t *testing.T) {
	ws := newWorkspace(t, nil)
	reg := Default(ws, Options{})
	first, err := json.Marshal(reg.Specs())
	if err != nil {
		t.Fatal(err)
	}
	other, _ := json.Marshal(Default(ws, Options{}).Specs())
	if !bytes.Equal(first, other) {
		t.Fatalf("specs differ between registries:\n%s\n%s", first, other)
	}
	if want := []string{"read_file", "write_file", "edit_file", "list_dir", "glob", "grep", "shell"}; !slices.Equal(reg.Names(), want) {
		t.Fatalf("names %v, want %v", reg.Names(), want)
	}
	// Properties come in spec order, and required lists what the spec says.
	if !bytes.Contains(first, []byte(`"properties":{"path":{"type":"string","description":"File path, relative to the working directory"},"old_string"`)) ||
		!bytes.Contains(first, []byte(`"required":["path","old_string","new_string"]`)) {
		t.Fatalf("edit_file schema not in spec order:\n%s", first)
	}
}

// schemaBudget is the most the seven schemas may take, as JSON, so that the
// system prompt and schemas stay under about 1,500 tokens.
const schemaBudget = 4500

func TestSpecsSize(t *testing.T) {
	n := provider.SpecsSize(Default(newWorkspace(t, nil), Options{}).Specs())
	t.Logf("tool schemas: %d bytes", n)
	if n > schemaBudget {
		t.Fatalf("tool schemas take %d bytes, over the %d budget", n, schemaBudget)
	}
}

func FuzzDecodeArgs(f *testing.F) {
	for _, seed := range []string{
		`{"path":"a.go","offset":3,"limit":10}`, `{"path":"a","limit":"10"}`, `{"path":"a","offset":7.0}`,
		`{"path":"a","old_string":"x","new_string":"y","replace_all":"true"}`, `{"path":null}`, `null`,
		`"x"`, `[]`, ``, `{"path":"\u00e9\ud800"}`, `{"path":"a","limit":-1e3}`, `{"path":"a","x":{"y":[1]}}`,
		`{"path":"a","path":"b"}`, `{"PATH":"a"}`, `{"path":"a","limit":" 12 "}`, `{"path":"a\u0000"}`,
		`"{\"path\":\"a\",\"limit\":\"3\"}"`, `"{}"`, `"{\"path\":"`, `{"path":"a","replace_all":"FALSE"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkRoundTrip[readFileArgs](t, raw, readParams)
		checkRoundTrip[editFileArgs](t, raw, editFileSpec().params)
	})
}

// checkRoundTrip checks that decodeArgs does not panic and that a struct it
// accepts encodes to arguments that decode back to the same struct.
func checkRoundTrip[T comparable](t *testing.T, raw []byte, params []param) {
	got, _, err := decodeArgs[T](raw, params)
	if err != nil {
		return
	}
	again, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("re-encode %+v: %v", got, err)
	}
	back, rep, err := decodeArgs[T](again, params)
	if err != nil || back != got || len(rep.unknown) != 0 || len(rep.repairs) != 0 {
		t.Fatalf("%q decoded to %+v, re-encoded as %s, decoded back to %+v, %+v, %v", raw, got, again, back, rep, err)
	}
}

func TestJSONSentForAString(t *testing.T) {
	ws := newWorkspace(t, nil)
	res := run(t, ws, Options{}, "write_file", `{"path":"package.json","content":{"name":"app","private":true,"deps":["a","b"]}}`)
	if res.IsError {
		t.Fatalf("write_file refused JSON content: %s", res.Content)
	}
	want := "{\n  \"name\": \"app\",\n  \"private\": true,\n  \"deps\": [\n    \"a\",\n    \"b\"\n  ]\n}\n"
	if got := readString(t, filepath.Join(ws.Dir(), "package.json")); got != want {
		t.Errorf("package.json = %q, want %q", got, want)
	}
	if len(res.Repairs) != 1 || res.Repairs[0] != `"content" sent as JSON, used as its text` {
		t.Errorf("repairs = %q", res.Repairs)
	}
}

func TestPathsAreTrimmed(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"main.go": "package main\n"})
	if res := run(t, ws, Options{}, "read_file", `{"path":" main.go \n"}`); res.IsError || !strings.Contains(res.Content, "package main") {
		t.Errorf("a path with spaces around it: %s", res.Content)
	}
}
