package scene

import (
	"flag"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"

	"github.com/lbsim/lbsim/assets"
)

// pngDir, when set (go test -run TestLessonsFit ./render/scene -png DIR),
// makes the geometry tests write each frame they check as a PNG, painted
// in software (quads and the Go fonts; close to the real view, not
// pixel-exact), to look at without a browser.
var pngDir = flag.String("png", "", "write the frames the geometry tests check as PNGs into this directory")

// WritePNG paints frame f into DIR/name.png when -png DIR is given.
func WritePNG(f *Frame, name string) error {
	if *pngDir == "" {
		return nil
	}
	img := image.NewRGBA(image.Rect(0, 0, f.W, f.H))
	draw.Draw(img, img.Bounds(), image.NewUniform(Background), image.Point{}, draw.Src)
	faces := map[[2]int]font.Face{}
	face := func(size float32, bold bool) font.Face {
		k := [2]int{int(size * 4), 0}
		if bold {
			k[1] = 1
		}
		if fc, ok := faces[k]; ok {
			return fc
		}
		src := assets.GoRegular
		if bold {
			src = assets.GoBold
		}
		fnt, _ := opentype.Parse(src)
		fc, _ := opentype.NewFace(fnt, &opentype.FaceOptions{Size: float64(size), DPI: 72, Hinting: font.HintingNone})
		faces[k] = fc
		return fc
	}
	for _, l := range f.Layers {
		for _, q := range l.Quads {
			// Rasterized in its bounding box only.
			x0, y0, x1, y1 := q.P[0].X, q.P[0].Y, q.P[0].X, q.P[0].Y
			for _, p := range q.P[1:] {
				x0, y0, x1, y1 = min(x0, p.X), min(y0, p.Y), max(x1, p.X), max(y1, p.Y)
			}
			b := image.Rect(int(x0), int(y0), int(x1)+1, int(y1)+1).Intersect(img.Bounds())
			if b.Empty() {
				continue
			}
			r := vector.NewRasterizer(b.Dx(), b.Dy())
			r.MoveTo(q.P[0].X-float32(b.Min.X), q.P[0].Y-float32(b.Min.Y))
			for _, p := range q.P[1:] {
				r.LineTo(p.X-float32(b.Min.X), p.Y-float32(b.Min.Y))
			}
			r.ClosePath()
			r.Draw(img, b, image.NewUniform(color.RGBA(q.C)), image.Point{})
		}
		for _, t := range l.Texts {
			fc := face(t.Size, t.Bold)
			x := t.X
			switch t.Align {
			case AlignCenter:
				x -= TextWidth(t.S, t.Size, t.Bold) / 2
			case AlignEnd:
				x -= TextWidth(t.S, t.Size, t.Bold)
			}
			d := font.Drawer{Dst: img, Src: image.NewUniform(t.C), Face: fc,
				Dot: fixed.Point26_6{X: fixed.Int26_6(x * 64), Y: fixed.Int26_6((t.Y + t.Size*0.9) * 64)}}
			d.DrawString(t.S)
		}
	}
	out, err := os.Create(*pngDir + "/" + name + ".png")
	if err != nil {
		return err
	}
	defer out.Close()
	return png.Encode(out, img)
}
