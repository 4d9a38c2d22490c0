package images

import (
	"context"
	"encoding/binary"
	"image"
	"image/color"

	"golang.org/x/sync/semaphore"
)

// maxMemory bounds the memory decoding and scaling one image may take,
// and what the images a Budget shares take together: a file of a hundred
// kilobytes may decode to gigabytes.
const maxMemory = 500_000_000

// maxAspect bounds how many times longer than the other one side of an
// image to scale down may be: past it the image scaled is a sliver.
const maxAspect = 64

// Budget shares maxMemory among the images read at the same time (the
// read_file calls of one turn run together): each waits until the memory
// its header says it needs is free.
type Budget struct{ sem *semaphore.Weighted }

// NewBudget returns a Budget with nothing taken.
func NewBudget() *Budget { return &Budget{semaphore.NewWeighted(maxMemory)} }

// take waits until n bytes are free, or ctx is done; the function it
// returns gives them back.
func (b *Budget) take(ctx context.Context, n int64) (func(), error) {
	if b == nil {
		return func() {}, nil
	}
	if err := b.sem.Acquire(ctx, n); err != nil {
		return nil, err
	}
	return func() { b.sem.Release(n) }, nil
}

// memory is how many bytes decoding data, an image in format of cfg's
// size and colours, and bringing it down to edge take at most.
func memory(cfg image.Config, format string, data []byte, edge int) int64 {
	n := int64(cfg.Width) * int64(cfg.Height)
	total := n * bytesPerPixel(format, cfg.ColorModel)
	switch {
	case format == "png" && interlaced(data):
		total *= 2 // each pass is decoded apart, then copied in
	case format == "jpeg" && progressive(data):
		total += n * 4 * components(cfg.ColorModel) // every coefficient is kept
	case format == "webp":
		total += n * 4 // the lossless decoder's pixels, or the alpha plane
	}
	total += scaling(cfg.Width, cfg.Height, edge)
	if max(cfg.Width, cfg.Height) > edge || format == "gif" || format == "webp" {
		// Encoded again: the encoder's state, the output as it grows.
		w, h := ScaledSize(cfg.Width, cfg.Height, edge)
		total += 2<<20 + int64(w)*int64(h)*4*2
	}
	return total
}

// bytesPerPixel is what the decoder of format holds for each pixel of an
// image of model m.
func bytesPerPixel(format string, m color.Model) int64 {
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	switch m {
	case color.GrayModel, color.AlphaModel:
		if format == "png" {
			return 4 // a transparent colour makes it NRGBA
		}
		return 1
	case color.Gray16Model, color.Alpha16Model:
		if format == "png" {
			return 8
		}
		return 2
	case color.YCbCrModel:
		return 3 // 4:4:4; subsampled takes less
	case color.RGBAModel, color.NRGBAModel, color.NYCbCrAModel:
		return 4
	case color.CMYKModel:
		return 8 // JPEG: YCbCr and K planes, then CMYK
	}
	return 8
}

func components(m color.Model) int64 {
	switch m {
	case color.GrayModel:
		return 1
	case color.CMYKModel:
		return 4
	}
	return 3
}

// scaling is the memory Downscale takes to bring a w×h image down to
// edge: the image shrunk by a whole factor and the band of rows it is
// made from, the filter's buffer and weights, the result.
func scaling(w, h, edge int) int64 {
	if max(w, h) <= edge {
		return 0
	}
	dw, dh := ScaledSize(w, h, edge)
	sw, sh := int64(w), int64(h)
	var total int64
	if k := int64(shrinkFactor(w, h, edge)); k > 1 {
		sw, sh = (sw+k-1)/k, (sh+k-1)/k
		total += sw*sh*4 + int64(w)*k*4 + sw*4*8
	}
	total += int64(dw) * sh * 32               // a [4]float64 for each source row of each output column
	total += (4*(sw+sh) + 5*int64(dw+dh)) * 16 // the weights: about 2×support of them per source pixel
	total += int64(dw) * int64(dh) * 4         // the result
	return total
}

// interlaced reports whether data, a PNG, is interlaced (Adam7).
func interlaced(data []byte) bool {
	const method = 8 + 8 + 12 // signature, IHDR's length and type, its fields before
	return len(data) > method && data[method] == 1
}

// progressive reports whether data, a JPEG, is progressive: its frame
// header, before the first scan, is SOF2.
func progressive(data []byte) bool {
	for i := 2; i+4 <= len(data); {
		if data[i] != 0xff {
			return false
		}
		switch m := data[i+1]; {
		case m == 0xff: // fill
			i++
		case m == 0xc2:
			return true
		case m == 0xc0 || m == 0xc1 || m == 0xda:
			return false
		case m == 0x01 || m >= 0xd0 && m <= 0xd8:
			i += 2
		default:
			i += 2 + int(binary.BigEndian.Uint16(data[i+2:]))
		}
	}
	return false
}
