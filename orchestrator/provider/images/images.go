// Package images makes image files ready to show a model: it recognises
// PNG, JPEG, WebP and GIF by their bytes, decodes them to check them (once
// their header shows that decoding and scaling them takes a bounded amount
// of memory), downscales those larger than the configured edge, and
// re-encodes what a server may not read (WebP, GIF's first frame) as PNG.
package images

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // image.Decode reads the formats registered here
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"syscall"

	_ "golang.org/x/image/webp"

	"lathe/config/safefile"
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
// unread when it is over lim.MaxBytes or not a regular file (a FIFO is
// opened without waiting for a writer).
func Read(path string, lim Limits) (provider.Image, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return provider.Image{}, &Error{Path: path, Kind: err, Msg: plainOpenError(err)}
	}
	defer f.Close()
	return ReadFrom(f, path, lim)
}

// ReadFrom reads an image from r, a file at path, at most lim.MaxBytes of
// it (see Decode).
func ReadFrom(r io.Reader, path string, lim Limits) (provider.Image, error) {
	return readFrom(context.Background(), r, path, lim, nil)
}

// ReadFrom is images.ReadFrom with the memory of decoding taken from b:
// it waits for it until ctx is done.
func (b *Budget) ReadFrom(ctx context.Context, r io.Reader, path string, lim Limits) (provider.Image, error) {
	return readFrom(ctx, r, path, lim, b)
}

func readFrom(ctx context.Context, r io.Reader, path string, lim Limits, b *Budget) (provider.Image, error) {
	if st, ok := r.(interface{ Stat() (os.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil {
			if fi.IsDir() {
				return provider.Image{}, &Error{Path: path, Kind: ErrFormat, Msg: "a directory, not an image"}
			}
			if !fi.Mode().IsRegular() {
				return provider.Image{}, &Error{Path: path, Kind: ErrFormat, Msg: fmt.Sprintf("not a regular file (%s)", safefile.Kind(fi.Mode()))}
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
	return decode(ctx, path, data, lim, b)
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
// image is named after path's base name. An image whose decoding and
// scaling would take more than maxMemory, or too thin to scale down, is
// refused before it is decoded.
func Decode(path string, data []byte, lim Limits) (provider.Image, error) {
	return decode(context.Background(), path, data, lim, nil)
}

func decode(ctx context.Context, path string, data []byte, lim Limits, b *Budget) (provider.Image, error) {
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
	need, err := check(path, format, cfg, data, lim)
	if err != nil {
		return provider.Image{}, err
	}
	release, err := b.take(ctx, need)
	if err != nil {
		return provider.Image{}, err
	}
	defer release()
	img, _, err := image.Decode(bytes.NewReader(data)) // of a GIF, its first frame
	if err != nil {
		return provider.Image{}, corrupt(path, format, err)
	}
	return prepare(path, name, format, data, img, lim)
}

// check refuses, before decoding, an image of cfg that is too large to
// decode or too thin to scale down; it returns the memory it takes.
func check(path, format string, cfg image.Config, data []byte, lim Limits) (int64, error) {
	w, h := cfg.Width, cfg.Height
	if w <= 0 || h <= 0 || w*h > maxPixels {
		return 0, &Error{Path: path, Kind: ErrTooLarge,
			Msg: fmt.Sprintf("%d×%d pixels, more than the %s million an image may have", w, h, human.Thousands(maxPixels/1_000_000))}
	}
	if max(w, h) > lim.MaxEdge && max(w, h) > maxAspect*min(w, h) {
		return 0, &Error{Path: path, Kind: ErrTooLarge,
			Msg: fmt.Sprintf("%d×%d pixels, one side more than %d times the other: too thin to scale down", w, h, maxAspect)}
	}
	need := memory(cfg, format, data, lim.MaxEdge)
	if need > maxMemory {
		return 0, &Error{Path: path, Kind: ErrTooLarge,
			Msg: fmt.Sprintf("%d×%d pixels, which would take %s to decode and scale, more than the %s an image may take",
				w, h, human.Bytes(need), human.Bytes(maxMemory))}
	}
	return need, nil
}

// prepare makes img, decoded from data, ready to send.
func prepare(path, name, format string, data []byte, img image.Image, lim Limits) (provider.Image, error) {
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
	var err error
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
