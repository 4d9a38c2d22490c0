package orchestrator

import (
	"math/rand/v2"
	"testing"
)

func TestThinkSplitter(t *testing.T) {
	tests := []struct {
		name           string
		in             string
		content, think string
		leaked         bool
	}{
		{"no tags", "Plain answer with a < sign and <b>html</b>.", "Plain answer with a < sign and <b>html</b>.", "", false},
		{"leading think block", "<think>\nThe user wants X.\n</think>\n\nHere is X.", "\n\nHere is X.", "\nThe user wants X.\n", true},
		{"think in the middle", "First. <think>hmm</think>Second.", "First. Second.", "hmm", true},
		{"unclosed at the end", "Answer.<think>still thinking", "Answer.", "still thinking", true},
		{"a lone closing tag is content", "use </think> to end", "use </think> to end", "", false},
		{"ends with a partial tag", "text <thi", "text <thi", "", false},
		{"two blocks", "<think>a</think>x<think>b</think>y", "xy", "ab", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Fed whole, and fed in every split into pieces of random
			// sizes: tags cut across chunks must be found all the same.
			for seed := range uint64(30) {
				rng := rand.New(rand.NewPCG(seed, 1))
				var s thinkSplitter
				var content, think string
				for rest := tt.in; rest != ""; {
					n := len(rest)
					if seed > 0 {
						n = min(len(rest), 1+rng.IntN(5))
					}
					c, th := s.feed(rest[:n])
					content, think, rest = content+c, think+th, rest[n:]
				}
				c, th := s.flush()
				content, think = content+c, think+th
				if content != tt.content || think != tt.think || s.leaked != tt.leaked {
					t.Fatalf("seed %d: content %q thinking %q leaked %v; want %q %q %v",
						seed, content, think, s.leaked, tt.content, tt.think, tt.leaked)
				}
			}
		})
	}
}
