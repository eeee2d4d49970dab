package sweep

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxRuns bounds a grid's number of runs (points × replications), so that
// run numbers, seeds and progress counts stay far from overflow.
const MaxRuns = 1 << 40

// maxRangeValues bounds the values of one FROM:TO:STEP range.
const maxRangeValues = 1_000_000

// Dimension is one varied setting: its name and its values, in order.
type Dimension struct {
	Name   string
	Values []string
}

// ParseVary reads one --vary value: NAME=V1,V2,… (a list; separate values
// with ';' instead when they hold commas themselves, like weights=3,1;1,1)
// or NAME=FROM:TO:STEP (a range of decimal numbers, both ends included when
// the steps reach them). It checks the syntax only; whether NAME is a
// setting and its values are allowed is for the caller to say.
func ParseVary(s string) (Dimension, error) {
	if !Printable(s) {
		return Dimension{}, fmt.Errorf("--vary %q: holds bytes that are not printable text", s)
	}
	name, list, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return Dimension{}, fmt.Errorf("--vary %q: want NAME=V1,V2,… or NAME=FROM:TO:STEP", s)
	}
	d := Dimension{Name: name}
	if parts := strings.Split(list, ":"); len(parts) == 3 && isDecimal(parts[0]) && isDecimal(parts[1]) && isDecimal(parts[2]) {
		vals, err := decimalRange(parts[0], parts[1], parts[2])
		if err != nil {
			return Dimension{}, fmt.Errorf("--vary %s: %v", s, err)
		}
		d.Values = vals
	} else {
		sep := ","
		if strings.Contains(list, ";") {
			sep = ";"
		}
		for _, v := range strings.Split(list, sep) {
			if v = strings.TrimSpace(v); v != "" {
				d.Values = append(d.Values, v)
			}
		}
	}
	if len(d.Values) == 0 {
		return Dimension{}, fmt.Errorf("--vary %s: no values: give at least one, like %s=1,2 or %s=1:10:1", s, name, name)
	}
	if !Printable(name) {
		return Dimension{}, fmt.Errorf("--vary %q: the name holds bytes that are not printable text", s)
	}
	seen := map[string]bool{}
	for _, v := range d.Values {
		if !Printable(v) {
			return Dimension{}, fmt.Errorf("--vary %q: the value %q holds bytes that are not printable text", s, v)
		}
		if seen[v] {
			return Dimension{}, fmt.Errorf("--vary %s: the value %s is listed twice", s, v)
		}
		seen[v] = true
	}
	return d, nil
}

// Printable reports whether s is valid UTF-8 without control characters:
// text that may be echoed to a terminal as it is.
func Printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// isDecimal reports whether s is a plain decimal number: an optional sign,
// digits, and an optional fraction.
func isDecimal(s string) bool {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	if intPart == "" && frac == "" {
		return false
	}
	for _, r := range intPart + frac {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// fixed splits a decimal into its digits as an integer and the number of
// digits after the point: "-0.25" is (-25, 2).
func fixed(s string) (mant int64, decimals int, err error) {
	s = strings.TrimSpace(s)
	intPart, frac, _ := strings.Cut(s, ".")
	if len(intPart)+len(frac) > 15 {
		return 0, 0, fmt.Errorf("%s has too many digits (at most 15)", s)
	}
	mant, err = strconv.ParseInt(intPart+frac, 10, 64)
	if intPart == "" || intPart == "-" {
		mant, err = strconv.ParseInt(intPart+"0"+frac, 10, 64)
	}
	return mant, len(frac), err
}

// decimalRange lists from, from+step, … up to to, computed in integers so
// that 0.3:0.9:0.1 gives 0.3, 0.4, … 0.9 and not 0.30000000000000004.
func decimalRange(from, to, step string) ([]string, error) {
	var m [3]int64
	var d [3]int
	for i, s := range []string{from, to, step} {
		var err error
		if m[i], d[i], err = fixed(s); err != nil {
			return nil, err
		}
	}
	dec := max(d[0], d[1], d[2])
	for i := range m {
		for range dec - d[i] {
			if m[i] > math.MaxInt64/100 || m[i] < math.MinInt64/100 {
				return nil, fmt.Errorf("the numbers are too large")
			}
			m[i] *= 10
		}
	}
	lo, hi, st := m[0], m[1], m[2]
	switch {
	case st <= 0:
		return nil, fmt.Errorf("the step %s must be greater than 0", step)
	case lo > hi:
		return nil, fmt.Errorf("the range is empty: FROM %s is above TO %s", from, to)
	case (hi-lo)/st >= maxRangeValues:
		return nil, fmt.Errorf("the range has more than %d values: use a larger step", maxRangeValues)
	}
	var vals []string
	for v := lo; v <= hi; v += st {
		vals = append(vals, formatFixed(v, dec))
	}
	return vals, nil
}

// formatFixed writes mant·10^−dec with its trailing fractional zeros removed.
func formatFixed(mant int64, dec int) string {
	neg := mant < 0
	if neg {
		mant = -mant
	}
	s := strconv.FormatInt(mant, 10)
	if dec > 0 {
		for len(s) <= dec {
			s = "0" + s
		}
		s = strings.TrimRight(s[:len(s)-dec]+"."+s[len(s)-dec:], "0")
		s = strings.TrimSuffix(s, ".")
	}
	if neg && s != "0" {
		s = "-" + s
	}
	return s
}

// Grid is a sweep's runs: every combination of its dimensions' values (the
// points), each run Replications times.
type Grid struct {
	Dims         []Dimension
	Replications int
	BaseSeed     uint64
	// Flags are the run flags every run shares (the seed and the varied
	// settings aside), written on every line so that a resume or a merge
	// of another configuration is refused.
	Flags []string

	index []map[string]int // each dimension's value → its position (RunOf)
}

// NewGrid checks that the dimensions have distinct names and that the grid
// has at least one and at most MaxRuns runs. No dimensions make one point.
func NewGrid(dims []Dimension, replications int, baseSeed uint64) (*Grid, error) {
	if replications < 1 {
		return nil, fmt.Errorf("--replications %d: want at least 1", replications)
	}
	total := float64(replications)
	seen := map[string]bool{}
	for _, d := range dims {
		if seen[d.Name] {
			return nil, fmt.Errorf("--vary %s is given twice: list all its values in one --vary", d.Name)
		}
		seen[d.Name] = true
		if len(d.Values) == 0 {
			return nil, fmt.Errorf("--vary %s has no values", d.Name)
		}
		total *= float64(len(d.Values))
	}
	if total > MaxRuns {
		return nil, fmt.Errorf("the grid has %.0f runs, more than %d: vary fewer settings or fewer values", total, int64(MaxRuns))
	}
	if baseSeed > math.MaxUint64-uint64(replications) {
		return nil, fmt.Errorf("--seed %d: seeds run up to seed+replications−1, which must fit in 64 bits", baseSeed)
	}
	return &Grid{Dims: dims, Replications: replications, BaseSeed: baseSeed}, nil
}

// Points returns the number of grid points.
func (g *Grid) Points() int64 {
	n := int64(1)
	for _, d := range g.Dims {
		n *= int64(len(d.Values))
	}
	return n
}

// Runs returns the number of runs: points × replications.
func (g *Grid) Runs() int64 { return g.Points() * int64(g.Replications) }

// Point returns grid point p (0 ≤ p < Points()), the last dimension
// changing fastest.
func (g *Grid) Point(p int64) Point {
	pt := make(Point, len(g.Dims))
	for i := len(g.Dims) - 1; i >= 0; i-- {
		n := int64(len(g.Dims[i].Values))
		pt[i] = Setting{Name: g.Dims[i].Name, Value: g.Dims[i].Values[p%n]}
		p /= n
	}
	return pt
}

// Run is one run of a grid.
type Run struct {
	Index       int64 // its number in the grid's order
	Point       Point
	Replication int
	Seed        uint64 // the grid's base seed + Replication
}

// Run returns run k (0 ≤ k < Runs()).
func (g *Grid) Run(k int64) Run {
	r := int(k % int64(g.Replications))
	return Run{Index: k, Point: g.Point(k / int64(g.Replications)), Replication: r, Seed: g.BaseSeed + uint64(r)}
}

// Setting is one varied setting's value at a grid point.
type Setting struct{ Name, Value string }

// Point is a grid point: one value for each dimension, in the grid's order.
type Point []Setting

// AppendJSON appends the point as a JSON object whose keys keep the grid's
// order. A value that is a JSON number or true/false is written as one;
// any other value as a string.
func (p Point) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	for i, s := range p {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, s.Name)
		b = append(b, ':')
		b = appendValue(b, s.Value)
	}
	return append(b, '}')
}

func appendValue(b []byte, v string) []byte {
	if v == "true" || v == "false" {
		return append(b, v...)
	}
	if len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') && json.Valid([]byte(v)) {
		return append(b, v...)
	}
	js, _ := json.Marshal(v)
	return append(b, js...)
}

// String returns the point as name=value pairs joined by spaces.
func (p Point) String() string {
	var parts []string
	for _, s := range p {
		parts = append(parts, s.Name+"="+s.Value)
	}
	return strings.Join(parts, " ")
}

// Shard is the part I of N of a grid's runs: those whose number is ≡ I mod N.
type Shard struct{ I, N int64 }

// ParseShard reads I/N with 0 ≤ I < N.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
	n, err2 := strconv.ParseInt(strings.TrimSpace(b), 10, 64)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("--shard %q: want I/N with whole numbers 0 ≤ I < N, like 0/4", s)
	}
	return Shard{i, n}, nil
}

// Has reports whether run k belongs to the shard.
func (s Shard) Has(k int64) bool { return k%s.N == s.I }

// Size returns how many of the first runs runs belong to the shard.
func (s Shard) Size(runs int64) int64 {
	if runs <= s.I {
		return 0
	}
	return (runs-s.I-1)/s.N + 1
}

// RunOf returns the number of the run a line stands for, and false when
// the line's point or replication is not in the grid. The line's seed is
// not checked.
func (g *Grid) RunOf(l Line) (int64, bool) {
	names, values, err := pointValues(l.Point)
	if err != nil || len(names) != len(g.Dims) || l.Replication >= g.Replications {
		return 0, false
	}
	if g.index == nil {
		g.index = make([]map[string]int, len(g.Dims))
		for i, d := range g.Dims {
			g.index[i] = make(map[string]int, len(d.Values))
			for j, v := range d.Values {
				g.index[i][v] = j
			}
		}
	}
	var p int64
	for i, d := range g.Dims {
		j, ok := g.index[i][values[i]]
		if names[i] != d.Name || !ok {
			return 0, false
		}
		p = p*int64(len(d.Values)) + int64(j)
	}
	return p*int64(g.Replications) + int64(l.Replication), true
}
