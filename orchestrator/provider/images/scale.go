package images

import (
	"image"
	stddraw "image/draw"
	"math"

	"golang.org/x/image/draw"
)

// Downscale returns img scaled so that its longer side is edge pixels,
// its aspect ratio kept. An image more than twice as large is first
// shrunk by a whole factor, each block of pixels averaged, so that the
// filter's buffer (32 bytes for each source row of each output column)
// stays the size of a few output images, whatever the input's.
func Downscale(img image.Image, edge int) image.Image {
	w, h := ScaledSize(img.Bounds().Dx(), img.Bounds().Dy(), edge)
	if k := shrinkFactor(img.Bounds().Dx(), img.Bounds().Dy(), edge); k > 1 {
		img = shrink(img, k)
	}
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

// shrinkFactor is the whole factor by which Downscale first shrinks a w×h
// image on its way to edge: the least that brings its longer side to at
// most twice edge (1: none).
func shrinkFactor(w, h, edge int) int {
	return max(1, (max(w, h)+2*edge-1)/(2*edge))
}

// shrink returns img made k times smaller each way, each k×k block of
// pixels averaged (premultiplied, as image.RGBA holds them); the blocks
// of the right and bottom edges average the pixels they have. It reads
// img k rows at a time, converted to RGBA by image/draw.
func shrink(img image.Image, k int) *image.RGBA {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	dw, dh := (w+k-1)/k, (h+k-1)/k
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	band := image.NewRGBA(image.Rect(0, 0, w, k))
	sum := make([]uint64, 4*dw)
	for dy := range dh {
		y0 := b.Min.Y + dy*k
		rows := min(k, b.Max.Y-y0)
		stddraw.Draw(band, image.Rect(0, 0, w, rows), img, image.Pt(b.Min.X, y0), stddraw.Src)
		clear(sum)
		for y := range rows {
			row := band.Pix[y*band.Stride : y*band.Stride+4*w]
			for x := range w {
				s := sum[4*(x/k) : 4*(x/k)+4]
				p := row[4*x : 4*x+4]
				s[0] += uint64(p[0])
				s[1] += uint64(p[1])
				s[2] += uint64(p[2])
				s[3] += uint64(p[3])
			}
		}
		out := dst.Pix[dy*dst.Stride:]
		for dx := range dw {
			n := uint64(rows * min(k, w-dx*k))
			for c := range 4 {
				out[4*dx+c] = uint8((sum[4*dx+c] + n/2) / n)
			}
		}
	}
	return dst
}
