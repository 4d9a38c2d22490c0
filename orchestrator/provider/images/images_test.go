package images

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

var lim = Limits{MaxEdge: 1568, MaxBytes: 20_000_000}

// testPNG is a w×h PNG, a gradient so that scaling has something to do.
func testPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x + y), 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func size(t *testing.T, data []byte) (string, int, int) {
	t.Helper()
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("what was made does not decode: %v", err)
	}
	return format, cfg.Width, cfg.Height
}

func TestSmallPNGGoesAsItIs(t *testing.T) {
	data := testPNG(t, 64, 32)
	img, err := Decode("/x/shot.png", data, lim)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(img.Data, data) || img.Name != "shot.png" || img.Width != 64 || img.Height != 32 {
		t.Fatalf("got %s %d×%d (%d bytes, same: %v)", img.Name, img.Width, img.Height, len(img.Data), bytes.Equal(img.Data, data))
	}
}

func TestLargePNGIsDownscaled(t *testing.T) {
	img, err := Decode("big.png", testPNG(t, 4000, 3000), lim)
	if err != nil {
		t.Fatal(err)
	}
	format, w, h := size(t, img.Data)
	if format != "png" || w != 1568 || h != 1176 || img.Width != w || img.Height != h {
		t.Fatalf("sent a %s of %d×%d (said %d×%d), want a png of 1568×1176", format, w, h, img.Width, img.Height)
	}
}

func TestJPEGStaysJPEG(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 2000, 500))
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, src, nil); err != nil {
		t.Fatal(err)
	}
	img, err := Decode("photo.jpg", buf.Bytes(), Limits{MaxEdge: 1000, MaxBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if format, w, h := size(t, img.Data); format != "jpeg" || w != 1000 || h != 250 {
		t.Fatalf("sent a %s of %d×%d, want a jpeg of 1000×250", format, w, h)
	}
}

func TestGIFAndWebPBecomePNG(t *testing.T) {
	pal := color.Palette{color.Black, color.White}
	anim := &gif.GIF{Image: []*image.Paletted{image.NewPaletted(image.Rect(0, 0, 30, 20), pal),
		image.NewPaletted(image.Rect(0, 0, 30, 20), pal)}, Delay: []int{1, 1}}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, anim); err != nil {
		t.Fatal(err)
	}
	webp, err := os.ReadFile("testdata/blue-purple-pink.lossy.webp")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"anim.gif": buf.Bytes(), "pic.webp": webp} {
		img, err := Decode(name, data, lim)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if format, w, h := size(t, img.Data); format != "png" || w != img.Width || h != img.Height || w == 0 {
			t.Errorf("%s: sent a %s of %d×%d (said %d×%d), want a png", name, format, w, h, img.Width, img.Height)
		}
	}
}

func TestRefusals(t *testing.T) {
	good := testPNG(t, 40, 40)
	huge := bytes.Clone(good)
	// The header claims 65536×65536 pixels, its checksum made right.
	binary.BigEndian.PutUint32(huge[16:], 1<<16)
	binary.BigEndian.PutUint32(huge[20:], 1<<16)
	binary.BigEndian.PutUint32(huge[29:], crc32.ChecksumIEEE(huge[12:29]))
	cases := []struct {
		name string
		data []byte
		lim  Limits
		want error
	}{
		{"notes.txt", []byte("hello, this is text"), lim, ErrFormat},
		{"cut.png", good[:len(good)/2], lim, ErrCorrupt},
		{"garbage.jpg", append([]byte("\xff\xd8\xff"), bytes.Repeat([]byte{1}, 100)...), lim, ErrCorrupt},
		{"big.png", good, Limits{MaxEdge: 1568, MaxBytes: 100}, ErrTooLarge},
		{"bomb.png", huge, lim, ErrTooLarge},
	}
	for _, c := range cases {
		_, err := Decode(c.name, c.data, c.lim)
		var e *Error
		if !errors.Is(err, c.want) || !errors.As(err, &e) || e.Path != c.name {
			t.Errorf("%s: got %v, want %v naming the file", c.name, err, c.want)
		}
	}
}

func TestReadRefusesALargeFileUnread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.png")
	if err := os.WriteFile(path, testPNG(t, 100, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path, Limits{MaxEdge: 100, MaxBytes: 64}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want too large", err)
	}
	if _, err := Read(filepath.Join(t.TempDir(), "none.png"), lim); err == nil || err.Error() == "" {
		t.Fatal("a missing file was read")
	}
	if _, err := Read(path, lim); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkDownscale4000x3000(b *testing.B) {
	data := testPNG(b, 4000, 3000)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Decode("big.png", data, lim); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReadRefusesWhatIsNotARegularFile: a FIFO is refused at once, not
// waited on for a writer; a device is refused unread.
func TestReadRefusesWhatIsNotARegularFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo.png")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{fifo: "not a regular file (a FIFO)", "/dev/zero": "not a regular file (a device)"} {
		_, err := Read(path, lim)
		if !errors.Is(err, ErrFormat) || err.Error() != path+": "+want {
			t.Errorf("%s: got %v, want %q", path, err, want)
		}
	}
}
