package twofer

import "testing"

func TestShareWith(t *testing.T) {
	for name, want := range map[string]string{"": "One for you, one for me.", "Alice": "One for Alice, one for me."} {
		if got := ShareWith(name); got != want {
			t.Errorf("ShareWith(%q) = %q, want %q", name, got, want)
		}
	}
}
