package scene

import (
	"image/color"
	"strconv"
)

// Point is a position in screen pixels.
type Point struct{ X, Y float32 }

// Rect is an axis-aligned rectangle in screen pixels.
type Rect struct{ X, Y, W, H float32 }

// Contains reports whether r lies entirely inside q.
func (q Rect) Contains(r Rect) bool {
	const eps = 0.01
	return r.X >= q.X-eps && r.Y >= q.Y-eps && r.X+r.W <= q.X+q.W+eps && r.Y+r.H <= q.Y+q.H+eps
}

// Overlaps reports whether r and q share interior area.
func (q Rect) Overlaps(r Rect) bool {
	return r.X < q.X+q.W && q.X < r.X+r.W && r.Y < q.Y+q.H && q.Y < r.Y+r.H
}

// Center returns the middle of r.
func (q Rect) Center() Point { return Point{q.X + q.W/2, q.Y + q.H/2} }

// Inset returns r shrunk by d on every side.
func (q Rect) Inset(d float32) Rect { return Rect{q.X + d, q.Y + d, q.W - 2*d, q.H - 2*d} }

func lerp(a, b Point, t float32) Point { return Point{a.X + (b.X-a.X)*t, a.Y + (b.Y-a.Y)*t} }

// smooth is the smoothstep easing of t in [0, 1].
func smooth(t float32) float32 {
	t = min(max(t, 0), 1)
	return t * t * (3 - 2*t)
}

// fade returns c with its alpha (and, premultiplied, its colour) scaled by a.
func fade(c color.RGBA, a float32) color.RGBA {
	a = min(max(a, 0), 1)
	return color.RGBA{uint8(float32(c.R) * a), uint8(float32(c.G) * a), uint8(float32(c.B) * a), uint8(float32(c.A) * a)}
}

// mix blends c towards d by t in [0, 1].
func mix(c, d color.RGBA, t float32) color.RGBA {
	t = min(max(t, 0), 1)
	f := func(a, b uint8) uint8 { return uint8(float32(a) + (float32(b)-float32(a))*t) }
	return color.RGBA{f(c.R, d.R), f(c.G, d.G), f(c.B, d.B), f(c.A, d.A)}
}

// Commas formats n with thousands separators: 1234567 → "1,234,567".
func Commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	var b []byte
	if neg {
		b = append(b, '-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return string(b)
}
