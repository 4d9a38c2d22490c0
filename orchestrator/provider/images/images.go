// Package images makes image files ready to show a model: it recognises
// PNG, JPEG, WebP and GIF by their bytes, decodes them to check them,
// downscales those larger than the configured edge, and re-encodes what a
// server may not read (WebP, GIF's first frame) as PNG.
package images

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // image.Decode reads the formats registered here
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp"

	"lathe/orchestrator/provider"
	"lathe/prompts/human"
)

// Limits bound the images attached.
type Limits struct {
	// MaxEdge is the longest side sent, in pixels: a larger image is
	// downscaled to it, keeping its aspect ratio.
	MaxEdge int
	// MaxBytes is the largest file accepted.
	MaxBytes int64
}

// maxPixels bounds the decoded size of an image (about 240 MB at 4 bytes a
// pixel): a file of a few kilobytes may claim any size in its header.
const maxPixels = 60_000_000

// Kinds of refusal; an *Error wraps one of them.
var (
	ErrFormat   = errors.New("not a PNG, JPEG, WebP or GIF image")
	ErrTooLarge = errors.New("image too large")
	ErrCorrupt  = errors.New("image cannot be decoded")
)

// Error is a file refused, with why, for a person.
type Error struct {
	Path string
	Kind error
	Msg  string
}

func (e *Error) Error() string { return e.Path + ": " + e.Msg }
func (e *Error) Unwrap() error { return e.Kind }

// Format is the format of data by its first bytes: "png", "jpeg", "gif",
// "webp", or "" for none of them.
func Format(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return "jpeg"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "gif"
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return "webp"
	}
	return ""
}

// Read reads the image file at path (see Decode); the file is refused
// unread when it is over lim.MaxBytes.
func Read(path string, lim Limits) (provider.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return provider.Image{}, &Error{Path: path, Kind: err, Msg: plainOpenError(err)}
	}
	defer f.Close()
	return ReadFrom(f, path, lim)
}

// ReadFrom reads an image from r, a file at path, at most lim.MaxBytes of
// it (see Decode).
func ReadFrom(r io.Reader, path string, lim Limits) (provider.Image, error) {
	if st, ok := r.(interface{ Stat() (os.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil {
			if fi.IsDir() {
				return provider.Image{}, &Error{Path: path, Kind: ErrFormat, Msg: "a directory, not an image"}
			}
			if fi.Size() > lim.MaxBytes {
				return provider.Image{}, tooLarge(path, fi.Size(), lim)
			}
		}
	}
	data, err := io.ReadAll(io.LimitReader(r, lim.MaxBytes+1))
	if err != nil {
		return provider.Image{}, &Error{Path: path, Kind: err, Msg: err.Error()}
	}
	if int64(len(data)) > lim.MaxBytes {
		return provider.Image{}, tooLarge(path, int64(len(data)), lim)
	}
	return Decode(path, data, lim)
}

func tooLarge(path string, size int64, lim Limits) error {
	return &Error{Path: path, Kind: ErrTooLarge, Msg: fmt.Sprintf("%s, more than the %s an image may take (images.max_bytes)",
		human.Bytes(size), human.Bytes(lim.MaxBytes))}
}

func plainOpenError(err error) string {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "no such file"
	case errors.Is(err, os.ErrPermission):
		return "permission denied"
	}
	return err.Error()
}

// Decode checks data, an image file at path, and makes it ready to send:
// PNG and JPEG within lim.MaxEdge go as they are, byte for byte; a larger
// image is downscaled to it (CatmullRom) and re-encoded (JPEG stays JPEG,
// the rest becomes PNG); WebP and GIF (its first frame) become PNG. The
// image is named after path's base name.
func Decode(path string, data []byte, lim Limits) (provider.Image, error) {
	name := filepath.Base(path)
	format := Format(data)
	if format == "" {
		return provider.Image{}, &Error{Path: path, Kind: ErrFormat, Msg: "not an image lathe can attach (PNG, JPEG, WebP or GIF)"}
	}
	if int64(len(data)) > lim.MaxBytes {
		return provider.Image{}, tooLarge(path, int64(len(data)), lim)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return provider.Image{}, corrupt(path, format, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > maxPixels {
		return provider.Image{}, &Error{Path: path, Kind: ErrTooLarge,
			Msg: fmt.Sprintf("%d×%d pixels, more than the %s million an image may have", cfg.Width, cfg.Height, human.Thousands(maxPixels/1_000_000))}
	}
	img, _, err := image.Decode(bytes.NewReader(data)) // of a GIF, its first frame
	if err != nil {
		return provider.Image{}, corrupt(path, format, err)
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	edge := max(w, h)
	if edge <= lim.MaxEdge && (format == "png" || format == "jpeg") {
		return provider.Image{Name: name, Data: data, Width: w, Height: h}, nil
	}
	if edge > lim.MaxEdge {
		img = Downscale(img, lim.MaxEdge)
		b = img.Bounds()
	}
	var buf bytes.Buffer
	if format == "jpeg" {
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90})
	} else {
		err = png.Encode(&buf, img)
	}
	if err != nil {
		return provider.Image{}, &Error{Path: path, Kind: err, Msg: "cannot re-encode it: " + err.Error()}
	}
	return provider.Image{Name: name, Data: buf.Bytes(), Width: b.Dx(), Height: b.Dy()}, nil
}

func corrupt(path, format string, err error) error {
	return &Error{Path: path, Kind: ErrCorrupt, Msg: fmt.Sprintf("a damaged %s image (%v)", formatName(format), err)}
}

func formatName(format string) string {
	return map[string]string{"png": "PNG", "jpeg": "JPEG", "gif": "GIF", "webp": "WebP"}[format]
}

// Downscale returns img scaled so that its longer side is edge pixels,
// its aspect ratio kept.
func Downscale(img image.Image, edge int) image.Image {
	w, h := ScaledSize(img.Bounds().Dx(), img.Bounds().Dy(), edge)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, img.Bounds(), draw.Src, nil)
	return dst
}

// ScaledSize is the size of a w×h image whose longer side is brought down
// to edge, the aspect ratio kept (at least a pixel each way).
func ScaledSize(w, h, edge int) (int, int) {
	if max(w, h) <= edge {
		return w, h
	}
	f := float64(edge) / float64(max(w, h))
	return max(1, int(math.Round(float64(w)*f))), max(1, int(math.Round(float64(h)*f)))
}
