package scene

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// randomSample returns a sample of span cycles from first whose every
// merged field holds a random value, its waits read.
func randomSample(rng *rand.Rand, first, span int64) Sample {
	s := Sample{First: first, Last: first + span - 1, haveWaits: true}
	for _, f := range sampleFields {
		switch p := f.ref(&s).(type) {
		case *int:
			*p = 1 + rng.IntN(1000)
		case *int64:
			*p = 1 + rng.Int64N(1000)
		case *float32:
			*p = float32(1 + rng.IntN(1000))
		case *States:
			*p = States{Busy: 1 + rng.IntN(9), Idle: 1 + rng.IntN(9), Down: 1 + rng.IntN(9), Warming: 1 + rng.IntN(9), Ejected: 1 + rng.IntN(9)}
		case *Waits:
			*p = Waits{P50: 1 + rng.Int64N(99), P95: 100 + rng.Int64N(900), P99: 1000 + rng.Int64N(900)}
		}
	}
	return s
}

// TestEverySampleFieldMerges: every field of Sample (but the bucket's span
// and the flag of its waits) has a row in sampleFields, every row names a
// field, and merge merges each row's field as the row says. A new chart's
// field left without a row (which merge would lose: its chart reading 0
// from the first merge, cycle HistoryLen, on) fails here.
func TestEverySampleFieldMerges(t *testing.T) {
	rows := map[string]Agg{}
	for _, f := range sampleFields {
		if _, ok := reflect.TypeFor[Sample]().FieldByName(f.name); !ok {
			t.Errorf("sampleFields row %q names no field of Sample", f.name)
		}
		rows[f.name] = f.agg
	}
	for f := range reflect.TypeFor[Sample]().Fields() {
		if _, ok := rows[f.Name]; !ok && f.Name != "First" && f.Name != "Last" && f.Name != "haveWaits" {
			t.Errorf("Sample field %s has no row in sampleFields: merge would drop it", f.Name)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		a := randomSample(rng, 0, 1+rng.Int64N(50))
		b := randomSample(rng, a.Last+1, 1+rng.Int64N(50))
		m := merge(a, b)
		if m.First != a.First || m.Last != b.Last {
			t.Fatalf("merge covers %d…%d, want %d…%d", m.First, m.Last, a.First, b.Last)
		}
		for _, f := range sampleFields {
			got, va, vb := reflect.ValueOf(f.ref(&m)).Elem(), reflect.ValueOf(f.ref(&a)).Elem(), reflect.ValueOf(f.ref(&b)).Elem()
			want := vb
			switch f.agg {
			case AggSum, AggMean, AggMax:
				x, y := number(va), number(vb)
				w := x + y
				if f.agg == AggMax {
					w = max(x, y)
				}
				if number(got) != w {
					t.Errorf("field %s (%v): merged %v and %v into %v, want %v", f.name, f.agg, x, y, number(got), w)
				}
				continue
			case AggAtPeak:
				if a.Servers > b.Servers {
					want = va
				}
			}
			if !reflect.DeepEqual(got.Interface(), want.Interface()) {
				t.Errorf("field %s (%v): merged into %v, want %v", f.name, f.agg, got, want)
			}
		}
	}
}

// number reads a numeric reflect value as a float64.
func number(v reflect.Value) float64 {
	switch v.Kind() {
	case reflect.Int, reflect.Int64:
		return float64(v.Int())
	case reflect.Float32:
		return v.Float()
	}
	panic("not a number: " + v.Kind().String())
}

// TestSeriesMergeAsDeclared: every series of every chart (bars, a stack's
// parts, lines) reads, on two merged samples, what its declared
// aggregation makes of its values on each: their peak, their sum, their
// mean per cycle weighted by the cycles each covers, the later one, or the
// one of the larger pool.
func TestSeriesMergeAsDeclared(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range charts {
		series := append(append([]chartSeries{c.bars}, c.stack...), c.lines...)
		if c.cdf {
			continue // over waits, not samples
		}
		for _, ser := range series {
			for range 100 {
				a := randomSample(rng, 0, 1+rng.Int64N(50))
				b := randomSample(rng, a.Last+1, 1+rng.Int64N(50))
				va, vb, got := float64(ser.value(a)), float64(ser.value(b)), float64(ser.value(merge(a, b)))
				na, nb := float64(a.Last-a.First+1), float64(b.Last-b.First+1)
				var want float64
				switch ser.agg {
				case AggLast:
					want = vb
				case AggSum:
					want = va + vb
				case AggMax:
					want = max(va, vb)
				case AggMean:
					want = (va*na + vb*nb) / (na + nb)
				case AggAtPeak:
					want = vb
					if a.Servers > b.Servers {
						want = va
					}
				}
				if math.Abs(got-want) > 1e-4*max(1, math.Abs(want)) {
					t.Fatalf("chart %q series %q (agg %v): %v and %v merge to %v, want %v", c.title, ser.name, ser.agg, va, vb, got, want)
				}
			}
		}
	}
}

// TestChartsReadPastTheFirstMerge feeds a history past several merges
// with every quantity above zero in every cycle: no chart's series reads
// 0 in any sample, before the first merge or after it.
func TestChartsReadPastTheFirstMerge(t *testing.T) {
	var h History
	cfg := sim.DefaultConfig()
	cfg.MinServers, cfg.MaxServers = 2, 30
	for c := range int64(4 * HistoryLen * 3) {
		h.AddWaits(everyQuantity(c), &cfg, States{Busy: 1, Idle: 1, Down: 1, Warming: 1, Ejected: 5}, Scaling{Metric6: 700_000, Target: 0.7, Proposal: 9}, Waits{1, 2, 3})
	}
	if h.Stride() < 4 {
		t.Fatalf("stride %d after %d cycles: the history never merged", h.Stride(), 4*HistoryLen*3)
	}
	for _, c := range charts {
		if c.cdf {
			continue // over waits, not samples
		}
		for _, ser := range append(append([]chartSeries{c.bars}, c.stack...), c.lines...) {
			for i := range h.Len() {
				if v := ser.value(h.At(i)); v <= 0 {
					t.Fatalf("chart %q series %q reads %v in sample %d of %d (stride %d)", c.title, ser.name, v, i, h.Len(), h.Stride())
				}
			}
		}
	}
}

// everyQuantity is cycle c's row with every count above zero: each
// whole-number field 1, set by reflection so that a field added to the
// row later counts too without naming it here; a queue of 5 over 9
// servers, scaling up and down in turn, and more arrivals than every way
// out of admission together.
func everyQuantity(c int64) sim.CycleStats {
	var st sim.CycleStats
	v := reflect.ValueOf(&st).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.CanInt() {
			f.SetInt(1)
		}
	}
	st.Cycle, st.Queue, st.Servers, st.Scale = c, 5, 9, 1-2*int(c%2)
	st.Generated = v.NumField()
	return st
}

// TestLongRunLegendSaysPeak: once a sample covers more than one cycle, a
// chart whose bars are a bucket's peak says so in its title, and one of
// rates says its bars are means; over single cycles neither does.
func TestLongRunLegendSaysPeak(t *testing.T) {
	for _, c := range charts {
		for _, stride := range []int64{1, 800} {
			v := chartView{spec: c, stride: stride}
			title := v.title()
			var want string
			switch {
			case stride == 1:
			case c.bars.agg == AggMax:
				want = "peak of 800 cycles"
			case c.bars.agg == AggMean:
				want = "mean of 800 cycles"
			}
			if want == "" && (strings.Contains(title, "peak") || strings.Contains(title, "mean")) {
				t.Errorf("chart %q over stride %d: %q names an aggregation", c.title, stride, title)
			}
			if want != "" && !strings.Contains(title, want) {
				t.Errorf("chart %q over stride %d: %q, want it to say %q", c.title, stride, title, want)
			}
		}
	}
	if charts[0].bars.agg != AggMax {
		t.Errorf("the queue chart's bars aggregate by %v, want the peak", charts[0].bars.agg)
	}
}

// TestSolidThresholdStaysOneLine: U·S, keyed as a solid line, stays one
// line when its value moves every sample (a pool scaling back and forth):
// each step from one run to the next is joined, so no run stands apart
// like a dot of a dotted line.
func TestSolidThresholdStaysOneLine(t *testing.T) {
	var h History
	cfg := sim.DefaultConfig()
	cfg.MinServers, cfg.MaxServers = 1, 20
	for c := range int64(60) {
		h.Add(sim.CycleStats{Cycle: c, Queue: 5, Servers: 4 + int(c%2)*4}, &cfg, States{Busy: 4}, Scaling{})
	}
	var f Frame
	spec := charts[0]
	spec.lines = spec.lines[:1] // U·S
	c := chartView{spec: spec, u: 1, maxV: 1000, end: 60, plot: Rect{50, 20, 600, 200}}
	c.data(&f, &h)
	var runs, joints int
	for _, q := range f.Layers[SceneLayer].Quads {
		if q.C != UpLineCol {
			continue
		}
		w, hgt := q.P[2].X-q.P[0].X, q.P[2].Y-q.P[0].Y
		switch {
		case w > hgt:
			runs++
		case hgt > w:
			joints++
		}
	}
	if runs < 50 || joints < runs-1 {
		t.Errorf("U·S drawn in %d runs and %d joints: want every run joined to the next", runs, joints)
	}
}
