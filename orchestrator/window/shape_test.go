package window

import (
	"fmt"
	"strings"
	"testing"

	"lathe/config"
)

// TestShapeTokens: a listing of numbered files takes about twice the
// tokens a byte of prose does; the counts are close to a real tokenizer's
// on both (llama3.2: the listing at 2.2 bytes a token, prose at 4 to 5).
func TestShapeTokens(t *testing.T) {
	var listing strings.Builder
	for i := range 400 {
		fmt.Fprintf(&listing, "data_%03d.log\n", i)
	}
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 100)
	l := float64(listing.Len()) / float64(ShapeTokens(listing.String()))
	p := float64(len(prose)) / float64(ShapeTokens(prose))
	if l < 1.6 || l > 2.4 || p < 3.8 || p > 5 {
		t.Errorf("listing %.2f bytes a token, prose %.2f", l, p)
	}
	for _, c := range []struct {
		s string
		n int
	}{{"", 0}, {"word", 1}, {" word", 1}, {"a  b", 3}, {"12345", 3}, {"{\"a\":1}", 5}, {"\n\n", 2}, {"héllo", 3}} {
		if got := ShapeTokens(c.s); got != c.n {
			t.Errorf("ShapeTokens(%q) = %d, want %d", c.s, got, c.n)
		}
	}
}

// BenchmarkShapeTokens: the shape of a window's worth of text (128 KB, a
// 32,768-token window at 4 bytes a token), which each count calibrates on.
func BenchmarkShapeTokens(b *testing.B) {
	s := strings.Repeat("func (w *Window) CutResult(content string) string { // data_001.log 0x1f\n", 1800)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		ShapeTokens(s)
	}
}

// TestCutResultByShape: of two results of the same size, a listing of
// numbered files is cut shorter than prose: each is sized by its own
// shape, scaled as the server's counts show, within its share.
func TestCutResultByShape(t *testing.T) {
	w := Window{NumCtx: 4096, Shares: config.Context{ToolResult: 0.25}}
	var listing strings.Builder
	for i := 0; listing.Len() < 12000; i++ {
		fmt.Fprintf(&listing, "data_%03d.log\n", i)
	}
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 270)
	l, p := len(w.CutResult(listing.String())), len(w.CutResult(prose))
	if p < 4000 || l > p*2/3 {
		t.Errorf("cut to %d bytes (listing) and %d (prose): want the listing about half", l, p)
	}
	if got := ShapeTokens(w.CutResult(listing.String())); got > 1024+100 {
		t.Errorf("the listing's cut takes %d shape tokens, more than its share", got)
	}
}
