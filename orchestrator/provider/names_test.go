package provider

import "testing"

func TestSameModel(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"onetool", "onetool:latest", true},
		{"onetool:latest", "onetool", true},
		{"Qwen3:8B", "qwen3:8b", true},
		{"qwen3", "qwen3:8b", false},
		{"qwen3:8b", "qwen3:4b", false},
		{"host:5000/ns/model", "host:5000/ns/model:latest", true},
		{"host:5000/ns/model", "host:5000/ns/model:q4", false},
		{"model.gguf", "model.gguf", true},
		{"", "", true},
		{"a", "", false},
	} {
		if got := SameModel(c.a, c.b); got != c.same {
			t.Errorf("SameModel(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}

func TestFindModel(t *testing.T) {
	served := map[string]bool{"onetool:latest": true, "qwen3:8b": false}
	if name, loaded, ok := FindModel(served, "onetool"); !ok || name != "onetool:latest" || !loaded {
		t.Errorf("FindModel(onetool) = %q, %v, %v", name, loaded, ok)
	}
	if _, _, ok := FindModel(served, "qwen3"); ok {
		t.Error("qwen3 found: a name without a tag is :latest, not any tag")
	}
}
