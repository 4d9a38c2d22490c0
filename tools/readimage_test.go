package tools

import (
	"bytes"
	"image"
	"image/png"
	"strings"
	"testing"

	"lathe/orchestrator/provider/images"
)

func pngOf(t *testing.T, w, h int) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestReadFileImage: read_file on an image returns a short text and the
// image, downscaled as configured; a damaged or too large one is an
// error result.
func TestReadFileImage(t *testing.T) {
	shot := pngOf(t, 640, 480)
	ws := newWorkspace(t, map[string]string{"docs/shot.png": shot, "cut.png": shot[:len(shot)/2]})
	opts := Options{Images: images.Limits{MaxEdge: 320, MaxBytes: 1 << 20}}
	res := run(t, ws, opts, "read_file", `{"path":"docs/shot.png"}`)
	if res.IsError || res.Image == nil || res.Image.Width != 320 || res.Image.Height != 240 || res.Image.Name != "shot.png" {
		t.Fatalf("result %q, image %v", res.Content, res.Image != nil)
	}
	if !strings.HasPrefix(res.Content, "docs/shot.png is an image, 320×240 pixels") || strings.Contains(res.Content, "\x89PNG") {
		t.Errorf("content %q", res.Content)
	}
	if res := run(t, ws, opts, "read_file", `{"path":"cut.png"}`); !res.IsError || res.Image != nil || !strings.Contains(res.Content, "a damaged PNG image") {
		t.Errorf("damaged: %q", res.Content)
	}
	small := Options{Images: images.Limits{MaxEdge: 320, MaxBytes: 100}}
	if res := run(t, ws, small, "read_file", `{"path":"docs/shot.png"}`); !res.IsError || res.Image != nil || !strings.Contains(res.Content, "more than the 100 B") {
		t.Errorf("too large: %q", res.Content)
	}
}
