package tools

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"image"
	"image/png"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
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

// pngHeader is the start of a w×h PNG of the bit depth and colour type
// given, as far as its header: what decides whether it is decoded.
func pngHeader(w, h int, depth, colorType byte) string {
	ihdr := binary.BigEndian.AppendUint32([]byte("IHDR"), uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, depth, colorType, 0, 0, 0)
	out := binary.BigEndian.AppendUint32([]byte("\x89PNG\r\n\x1a\n"), uint32(len(ihdr)-4))
	return string(binary.BigEndian.AppendUint32(append(out, ihdr...), crc32.ChecksumIEEE(ihdr)))
}

// TestAttackImages: images a repository may hold to make read_file (for
// a vision model) take gigabytes or hang are refused from their header,
// or unopened; a turn's calls read at once share the memory images take.
func TestAttackImages(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		"tall.png":   pngHeader(1, 60_000_000, 8, 0), // took 5.7 GB to decode and scale
		"wide.png":   pngHeader(65*900, 900, 8, 2),
		"bomb16.png": pngHeader(8944, 6708, 16, 6), // 60 MP of 16-bit RGBA
		"shot.png":   pngOf(t, 2000, 1500),
	})
	if err := syscall.Mkfifo(filepath.Join(ws.Dir(), "fifo.png"), 0o600); err != nil {
		t.Fatal(err)
	}
	attacks := map[string]string{
		"tall.png":   "tall.png: 1×60000000 pixels, one side more than 64 times the other: too thin to scale down",
		"wide.png":   "wide.png: 58500×900 pixels, one side more than 64 times the other",
		"bomb16.png": "bomb16.png: 8944×6708 pixels, which would take 6",
		"fifo.png":   "fifo.png is not a regular file",
	}
	reg := Default(ws, Options{})
	tool, _ := reg.Lookup("read_file")
	var wg sync.WaitGroup
	results := make(map[string]Result)
	var mu sync.Mutex
	for _, name := range []string{"tall.png", "wide.png", "bomb16.png", "fifo.png", "shot.png", "shot.png", "shot.png"} {
		call, err := tool.Prepare(json.RawMessage(`{"path":"` + name + `"}`))
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			res, err := call.Run(t.Context(), Caller{})
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if prev, ok := results[name]; ok && prev.Content != res.Content {
				t.Errorf("%s read twice at once: %q, then %q", name, prev.Content, res.Content)
			}
			results[name] = res
		})
	}
	wg.Wait()
	for name, want := range attacks {
		if res := results[name]; !res.IsError || res.Image != nil || !strings.Contains(res.Content, want) {
			t.Errorf("%s: %q, want %q", name, res.Content, want)
		}
	}
	if res := results["shot.png"]; res.IsError || res.Image == nil || res.Image.Width != 1568 {
		t.Errorf("shot.png: %q", res.Content)
	}
}
