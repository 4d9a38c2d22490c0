package textcall

import "testing"

func TestResolver(t *testing.T) {
	resolve := Resolver([]string{"read_file", "Shell", "Read", "read", "tools.x"})
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"exact", "read_file", "read_file", true},
		{"other case", "READ_FILE", "read_file", true},
		{"registered mixed case", "shell", "Shell", true},
		{"exact wins over folded", "read", "read", true},
		{"first listed wins folded", "READ", "Read", true},
		{"functions prefix", "functions.Read_File", "read_file", true},
		{"function prefix", "function.read_file", "read_file", true},
		{"tools prefix in capitals", "TOOLS.shell", "Shell", true},
		{"tool prefix", "tool.read_file", "read_file", true},
		{"surrounding space", "  read_file\n", "read_file", true},
		{"registered name with a prefix-like part", "tools.x", "tools.x", true},
		{"prefix stripped once only", "functions.tools.read_file", "", false},
		{"prefix alone", "functions.", "", false},
		{"unknown", "search_web", "", false},
		{"unknown after prefix", "functions.search_web", "", false},
		{"empty", "", "", false},
		{"other separator", "read-file", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := resolve(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("resolve(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestResolverCopiesNames(t *testing.T) {
	names := []string{"read_file"}
	resolve := Resolver(names)
	names[0] = "shell"
	if _, ok := resolve("shell"); ok {
		t.Error("resolve accepted a name added to the slice after Resolver returned")
	}
	if got, ok := resolve("read_file"); !ok || got != "read_file" {
		t.Errorf("resolve(read_file) = %q, %v; want read_file, true", got, ok)
	}
}

func TestFindNilResolve(t *testing.T) {
	content := `{"name": "read_file", "arguments": {}}`
	calls, rest := Find(content, nil)
	if calls != nil || rest != content {
		t.Errorf("Find(nil resolve) = %v, %q; want nil, content", calls, rest)
	}
}
