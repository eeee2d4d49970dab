package chart

import (
	"bytes"
	"image/png"
	"io"
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w, h int
		ok   bool
	}{
		{"900x500", 900, 500, true},
		{"100x10000", 100, 10000, true},
		{"99x500", 0, 0, false},
		{"900x10001", 0, 0, false},
		{"900X500", 0, 0, false},
		{"900x500x2", 0, 0, false},
		{" 900x500", 0, 0, false},
		{"0900x500", 0, 0, false},
		{"", 0, 0, false},
	} {
		w, h, err := ParseSize(tc.in)
		if (err == nil) != tc.ok || w != tc.w || h != tc.h {
			t.Errorf("ParseSize(%q) = %d, %d, %v", tc.in, w, h, err)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	f.Add("900x500")
	f.Add("1x1")
	f.Fuzz(func(t *testing.T, s string) {
		w, h, err := ParseSize(s)
		if err == nil && (w < MinSize || h < MinSize || w > MaxSize || h > MaxSize) {
			t.Fatalf("ParseSize(%q) = %d, %d", s, w, h)
		}
	})
}

func TestFormat(t *testing.T) {
	for in, want := range map[string]string{"a.svg": "svg", "b/c.PNG": "png", "x.pdf": "", "x": ""} {
		got, err := Format(in)
		if got != want || (err == nil) != (want != "") {
			t.Errorf("Format(%q) = %q, %v", in, got, err)
		}
	}
}

func TestTimelineBuckets(t *testing.T) {
	const last = 10_000
	tl := NewTimeline("t", last)
	for c := int64(0); c <= last; c++ {
		scale := 0
		if c == 4321 || c == 4322 { // one bucket: one mark
			scale = 1
		}
		if c >= 9000 && c%2 == 0 { // every bucket from 9000: a mark in each
			scale = -1
		}
		q := int(c % 7)
		if c == 4322 {
			q = 99
		}
		tl.Add(Cycle{Cycle: c, Queue: q, Live: int(c / 1000), Up: 1, Down: 0.5, Scale: scale})
	}
	if tl.Every() != 6 || len(tl.queue) > MaxPoints+1 || len(tl.ups) != 1 || tl.ups[0].X != 4321 || len(tl.downs) != 1000/6+1 {
		t.Fatalf("every %d, %d points, scale-ups %v, %d scale-downs", tl.Every(), len(tl.queue), tl.ups, len(tl.downs))
	}
	peak := 0.0
	for _, xy := range tl.queue {
		peak = math.Max(peak, xy.Y)
	}
	if peak != 99 || tl.live[len(tl.live)-1].Y != 10 || tl.queue[len(tl.queue)-1].X != last {
		t.Errorf("a bucket lost the peak or the last cycle: peak %v, last %v", peak, tl.queue[len(tl.queue)-1])
	}
	var buf bytes.Buffer
	if err := tl.Write(&buf, "png", 333, 222); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil || img.Bounds().Dx() != 333 || img.Bounds().Dy() != 222 {
		t.Fatalf("png: %v %v", err, img.Bounds())
	}
}

// TestSweepRefusesHugeValues: values near the float64 limit made the axis
// ticker loop forever; they are refused with a message instead.
func TestSweepRefusesHugeValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Series
	}{
		{"means ±1e308", Series{Label: "a", X: []float64{1, 2}, Mean: []float64{-1e308, 1e308}, Low: []float64{math.NaN(), math.NaN()}, High: []float64{math.NaN(), math.NaN()}}},
		{"x ±1e308", Series{Label: "a", X: []float64{-1e308, 1e308}, Mean: []float64{1, 2}, Low: []float64{math.NaN(), math.NaN()}, High: []float64{math.NaN(), math.NaN()}}},
		{"infinite interval", Series{Label: "a", X: []float64{1, 2}, Mean: []float64{1, 2}, Low: []float64{math.Inf(-1), 0}, High: []float64{3, 4}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				done <- (&Sweep{Title: "t", XLabel: "rate", YLabel: "avg_wait", Series: []Series{tc.s}}).Write(io.Discard, "svg", 300, 200)
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "a chart draws values from") {
					t.Errorf("got %v, want an error naming the range", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("Write did not return")
			}
		})
	}
	// The largest allowed values still draw.
	s := Series{Label: "a", X: []float64{-MaxValue, MaxValue}, Mean: []float64{-MaxValue, MaxValue}, Low: []float64{math.NaN(), math.NaN()}, High: []float64{math.NaN(), math.NaN()}}
	if err := (&Sweep{Series: []Series{s}}).Write(io.Discard, "svg", 300, 200); err != nil {
		t.Errorf("±MaxValue: %v", err)
	}
}
