package images

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sync/semaphore"
)

// pngChunk appends a PNG chunk of type typ holding data to out.
func pngChunk(out []byte, typ string, data []byte) []byte {
	out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
	start := len(out)
	out = append(append(out, typ...), data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
}

// pngHeader is the signature and IHDR of a w×h PNG of the bit depth and
// colour type given: enough for image.DecodeConfig.
func pngHeader(w, h int, depth, colorType byte) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, depth, colorType, 0, 0, 0)
	return pngChunk([]byte("\x89PNG\r\n\x1a\n"), "IHDR", ihdr)
}

// tallPNG is a valid 8-bit grayscale PNG of 1×h black pixels: its rows
// compress to almost nothing (116 KB for 60 million).
func tallPNG(t *testing.T, h int) []byte {
	t.Helper()
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	rows := make([]byte, 2<<20) // rows of a filter byte and a pixel, all 0
	for left := 2 * h; left > 0; left -= len(rows) {
		if _, err := zw.Write(rows[:min(left, len(rows))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	out := pngChunk(pngHeader(1, h, 8, 0), "IDAT", z.Bytes())
	return pngChunk(out, "IEND", nil)
}

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestTallPNGRefusedBeforeDecoding: a PNG of 116 KB, 1×60,000,000 pixels
// (just within the pixel cap), used to take 5.7 GB to decode and scale.
// It is refused from its header, having allocated next to nothing.
func TestTallPNGRefusedBeforeDecoding(t *testing.T) {
	data := tallPNG(t, 60_000_000)
	if len(data) > 200_000 {
		t.Fatalf("the test's PNG is %d bytes", len(data))
	}
	var err error
	n := allocated(func() { _, err = Decode("tall.png", data, lim) })
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "tall.png: 1×60000000 pixels, one side more than 64 times the other") {
		t.Fatalf("got %v, want it refused as too thin", err)
	}
	if n > 4<<20 {
		t.Errorf("refusing it allocated %d bytes", n)
	}
}

// TestCheckBoundsMemory: what the header says decides, before decoding,
// whether an image is decoded: by the bytes it takes and the ratio of its
// sides, not by its pixels alone.
func TestCheckBoundsMemory(t *testing.T) {
	cases := []struct {
		name         string
		w, h         int
		depth, ctype byte
		want         error // nil: decoded
	}{
		{"7700² RGBA8", 7700, 7700, 8, 6, nil},
		{"7700² RGBA16", 7700, 7700, 16, 6, ErrTooLarge},
		{"60 MP gray", 8944, 6708, 8, 0, nil},
		{"60 MP RGBA16", 8944, 6708, 16, 6, ErrTooLarge},
		{"40 MP RGB16", 7300, 5475, 16, 2, nil},
		{"48 MP RGB16", 8000, 6000, 16, 2, ErrTooLarge},
		{"wide 64:1", 64 * 900, 900, 8, 2, nil},
		{"wide 65:1", 65 * 900, 900, 8, 2, ErrTooLarge},
		{"thin, small: sent as it is", 1, 1500, 8, 0, nil},
		{"thin, scaled", 1, 1569, 8, 0, ErrTooLarge},
		{"over the pixel cap", 10000, 6001, 8, 0, ErrTooLarge},
	}
	for _, c := range cases {
		data := pngHeader(c.w, c.h, c.depth, c.ctype)
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		need, err := check(c.name, "png", cfg, data, lim)
		if !errors.Is(err, c.want) || (err == nil) != (c.want == nil) {
			t.Errorf("%s: got %v (needs %d MB), want %v", c.name, err, need>>20, c.want)
		}
		if err == nil && (need <= 0 || need > maxMemory) {
			t.Errorf("%s: accepted, needing %d bytes", c.name, need)
		}
	}
}

// TestMemoryCoversDecoding: decoding and scaling an image allocates no
// more than check said it would take, for each format and colour model,
// shrunk first (more than twice the edge) or not.
func TestMemoryCoversDecoding(t *testing.T) {
	encode := func(f func(*bytes.Buffer) error) []byte {
		var buf bytes.Buffer
		if err := f(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	gray := image.NewGray(image.Rect(0, 0, 1600, 1200))
	rgba64 := image.NewRGBA64(image.Rect(0, 0, 1000, 750))
	for i := range rgba64.Pix {
		rgba64.Pix[i] = uint8(i * 7)
	}
	photo := image.NewRGBA(image.Rect(0, 0, 1600, 1200))
	pal := image.NewPaletted(image.Rect(0, 0, 1200, 1200), color.Palette{color.Black, color.White})
	webp, err := os.ReadFile("testdata/blue-purple-pink.lossy.webp")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"gray.png":    encode(func(b *bytes.Buffer) error { return png.Encode(b, gray) }),
		"rgba64.png":  encode(func(b *bytes.Buffer) error { return png.Encode(b, rgba64) }),
		"photo.jpg":   encode(func(b *bytes.Buffer) error { return jpeg.Encode(b, photo, nil) }),
		"grey.jpg":    encode(func(b *bytes.Buffer) error { return jpeg.Encode(b, gray, nil) }),
		"palette.gif": encode(func(b *bytes.Buffer) error { return gif.Encode(b, pal, nil) }),
		"nrgba.png":   testPNG(t, 1000, 700),
		"mid.png":     testPNG(t, 500, 400),
		"pic.webp":    webp,
	}
	lim := Limits{MaxEdge: 300, MaxBytes: 1 << 30}
	for name, data := range files {
		cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		need, err := check(name, format, cfg, data, lim)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		runtime.GC()
		n := allocated(func() { _, err = Decode(name, data, lim) })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n > uint64(need) {
			t.Errorf("%s: decoding allocated %d KB, more than the %d KB it was said to need", name, n>>10, need>>10)
		}
	}
}

// TestShrinkAverages: the whole-factor shrink averages each block, the
// blocks cut by the image's edge over the pixels they hold.
func TestShrinkAverages(t *testing.T) {
	src := image.NewGray(image.Rect(0, 0, 5, 3))
	for i := range src.Pix {
		src.Pix[i] = uint8(10 * i) // rows 0..40, 50..90, 100..140
	}
	got := shrink(src, 2)
	if got.Bounds().Dx() != 3 || got.Bounds().Dy() != 2 {
		t.Fatalf("size %v", got.Bounds())
	}
	want := []uint8{30, 50, 65, 105, 125, 140} // e.g. (0+10+50+60)/4, (40+90)/2, 140
	for i, v := range want {
		if r := got.Pix[4*i]; r != v {
			t.Errorf("pixel %d: %d, want %d", i, r, v)
		}
	}
}

func TestProgressiveJPEG(t *testing.T) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	baseline := buf.Bytes()
	// An APP0 segment, then a progressive frame header.
	prog := append([]byte("\xff\xd8\xff\xe0\x00\x04ab\xff\xff\xc2\x00\x0b"), make([]byte, 9)...)
	if progressive(baseline) || !progressive(prog) || progressive(prog[:9]) {
		t.Errorf("baseline %v, progressive %v, cut %v", progressive(baseline), progressive(prog), progressive(prog[:9]))
	}
}

// TestBudgetWaits: a read waits for the memory others hold, and gives up
// when its context ends.
func TestBudgetWaits(t *testing.T) {
	b := &Budget{semaphore.NewWeighted(1 << 20)}
	release, err := b.take(t.Context(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	data := testPNG(t, 40, 30)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() {
		_, err := b.ReadFrom(ctx, bytes.NewReader(data), "a.png", lim)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("with the memory held and the context ended: %v", err)
	}
	release()
	if img, err := b.ReadFrom(t.Context(), bytes.NewReader(data), "a.png", lim); err != nil || img.Width != 40 {
		t.Fatalf("with the memory free: %v", err)
	}
}
