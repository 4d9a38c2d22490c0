package ollama

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestPlainJSON(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"html escapes", `{"command":"a \u0026\u0026 b \u003e c \u003C d"}`, `{"command":"a && b > c < d"}`},
		{"an escaped backslash before u0026 stays", `{"s":"\\u0026"}`, `{"s":"\\u0026"}`},
		{"other escapes stay", `{"s":"\"q\" \n \u2028 \u00e9"}`, `{"s":"\"q\" \n \u2028 \u00e9"}`},
		{"nothing to do", `{"path":"a.go"}`, `{"path":"a.go"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := plainJSON(tt.in)
			if string(got) != tt.want {
				t.Errorf("plainJSON(%s) = %s, want %s", tt.in, got, tt.want)
			}
			var a, b any
			if json.Unmarshal([]byte(tt.in), &a) != nil || json.Unmarshal(got, &b) != nil {
				t.Fatalf("not JSON: %s", got)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("the value changed: %v → %v", a, b)
			}
		})
	}
}
