package sweep

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lbsim/lbsim/queueing"
)

// Input is one results file to aggregate.
type Input struct {
	Name string // for messages
	R    io.Reader
}

// Report is the aggregate of one or more results files: per grid point,
// each metric's mean and 95% interval over the point's replications, and
// what is wrong with the set of runs.
type Report struct {
	Dims    []Dimension // the varied settings and their values, as the files show them
	Metrics []string    // the metrics, in the order asked for
	Points  []PointStats
	// Replications is the number of replications each point should have:
	// one more than the highest replication seen.
	Replications int
	Runs         int      // distinct runs read
	Flags        []string // the run flags every line shares
	// MissingRuns is how many runs of the grid no file holds; Missing
	// lists the first of them (at most MaxListed).
	MissingRuns int64
	Missing     []Key
	// Duplicates and Conflicts list the first runs (at most MaxListed)
	// found more than once with the same result, and with different
	// results; DuplicateRuns and ConflictRuns count them all.
	Duplicates, Conflicts       []Key
	DuplicateRuns, ConflictRuns int64
	Partial                     []string // files ending in a partial line (ignored)
	BaseSeeds                   []uint64 // the base seeds seen (seed − replication); more than one is a mixed merge
	Precision                   float64  // the --precision asked for; 0 = none
	Wide                        int      // how many point metrics are wider than Precision allows
}

// PointStats is one grid point's results.
type PointStats struct {
	Point Point
	Runs  int
	Stats []Stat // one per metric, in Report.Metrics order
}

// Stat is a metric's mean over a point's replications with its 95%
// Student t interval (Low, High are NaN with fewer than 2 replications).
type Stat struct {
	Mean, Low, High, HalfWidth float64
	N                          int
	// Wide is set when HalfWidth is more than Precision × |Mean|; Needed is
	// then about how many replications would bring it within (−1: no number
	// of replications will, as the mean is 0).
	Wide   bool
	Needed int
}

// MaxListed bounds the runs a Report lists as missing: the rest are only
// counted, as a grid implied by a few lines may be vast.
const MaxListed = 10

// entry is what is kept of one line.
type entry struct {
	pos, file int // line number within its file and the file's index: the run order, for shards given in order
	key       Key
	values    []string // the point's values, in the dimensions' order
	metrics   []float64
}

// Aggregate merges the whole lines of the inputs and computes each grid
// point's statistics for the metrics (summary keys; a dotted name such as
// P.avg_wait reaches into a nested object). precision > 0 flags intervals
// wider than precision × |mean|.
//
// The grid is taken to be every combination of the values the files show
// for each setting, with replications 0 … the highest seen: runs of it
// that no file holds are reported as Missing. The order of the points and
// values is the sweep's own when the files are given in shard order.
func Aggregate(inputs []Input, metrics []string, precision float64) (*Report, error) {
	if len(metrics) == 0 {
		return nil, fmt.Errorf("--metric: name at least one summary key, like avg_wait")
	}
	m := &merger{rep: &Report{Metrics: metrics, Precision: precision}, seen: map[Key]uint64{}, seeds: map[uint64]bool{}}
	for fi, in := range inputs {
		c, err := ReadFile(in.R, func(n int, l Line) error {
			if err := m.add(fi, n, l); err != nil {
				return fmt.Errorf("line %d: %v", n, err)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %v", in.Name, err)
		}
		if c.Partial {
			m.rep.Partial = append(m.rep.Partial, in.Name)
		}
	}
	if len(m.entries) == 0 {
		return nil, fmt.Errorf("no runs in %s", inputNames(inputs))
	}
	return m.report()
}

// merger collects the lines of the files being aggregated.
type merger struct {
	rep     *Report
	names   []string // the varied settings, from the first line
	entries []entry
	seen    map[Key]uint64 // each run's key → a hash of its summary
	seeds   map[uint64]bool
}

// add takes in line n of file fi.
func (m *merger) add(fi, n int, l Line) error {
	names, values, err := pointValues(l.Point)
	if err != nil {
		return err
	}
	if m.names == nil {
		m.names, m.rep.Flags = names, l.Flags
	} else if !slices.Equal(m.names, names) {
		return fmt.Errorf("it varies %s, but the first line varies %s: these are different sweeps",
			strings.Join(names, ", "), strings.Join(m.names, ", "))
	} else if !slices.Equal(m.rep.Flags, l.Flags) {
		return fmt.Errorf("its run flags [%s] differ from the first line's [%s]: these are different sweeps",
			quoteList(l.Flags), quoteList(m.rep.Flags))
	}
	k := l.Key()
	var buf bytes.Buffer
	json.Compact(&buf, l.Summary)
	h := fnv.New64a()
	h.Write(buf.Bytes())
	sum := h.Sum64()
	if prev, dup := m.seen[k]; dup {
		list, n := &m.rep.Duplicates, &m.rep.DuplicateRuns
		if prev != sum {
			list, n = &m.rep.Conflicts, &m.rep.ConflictRuns
		}
		if *n++; len(*list) < MaxListed {
			*list = append(*list, k)
		}
		return nil
	}
	m.seen[k] = sum
	ms, err := MetricValues(l.Summary, m.rep.Metrics)
	if err != nil {
		return err
	}
	m.seeds[l.Seed-uint64(l.Replication)] = true
	m.entries = append(m.entries, entry{pos: n, file: fi, key: k, values: values, metrics: ms})
	m.rep.Replications = max(m.rep.Replications, l.Replication+1)
	return nil
}

// report puts the entries in run order, finds each setting's values in
// that order, and builds the report.
func (m *merger) report() (*Report, error) {
	rep := m.rep
	for s := range m.seeds {
		rep.BaseSeeds = append(rep.BaseSeeds, s)
	}
	slices.Sort(rep.BaseSeeds)
	slices.SortStableFunc(m.entries, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.pos, b.pos), cmp.Compare(a.file, b.file))
	})
	rep.Runs = len(m.entries)
	rep.Dims = make([]Dimension, len(m.names))
	index := make([]map[string]int, len(m.names))
	for i, n := range m.names {
		rep.Dims[i].Name = n
		index[i] = map[string]int{}
	}
	for _, e := range m.entries {
		for i, v := range e.values {
			if _, ok := index[i][v]; !ok {
				index[i][v] = len(rep.Dims[i].Values)
				rep.Dims[i].Values = append(rep.Dims[i].Values, v)
			}
		}
	}
	if err := rep.build(m.entries, index); err != nil {
		return nil, err
	}
	return rep, nil
}

// build groups the entries by point, in grid order, and counts the missing
// runs (listing the first). Its work grows with the entries, not with the
// grid they imply, which is bounded by MaxRuns.
func (rep *Report) build(entries []entry, index []map[string]int) error {
	g := &Grid{Dims: rep.Dims, Replications: rep.Replications}
	runs := float64(rep.Replications)
	for _, d := range rep.Dims {
		runs *= float64(len(d.Values))
	}
	if runs > MaxRuns {
		return fmt.Errorf("the lines imply a grid of %.3g runs (every combination of the values they show, each with replications 0 to %d), more than %d: they are not one sweep",
			runs, rep.Replications-1, int64(MaxRuns))
	}
	byPoint := map[int64][]entry{}
	for _, e := range entries {
		var p int64
		for i, v := range e.values {
			p = p*int64(len(rep.Dims[i].Values)) + int64(index[i][v])
		}
		byPoint[p] = append(byPoint[p], e)
	}
	have := make(map[Key]bool, len(entries))
	for _, e := range entries {
		have[e.key] = true
	}
	rep.MissingRuns = g.Runs() - int64(len(entries))
	// The first missing runs lie within the first len(entries)+MaxListed.
	for k := int64(0); k < g.Runs() && len(rep.Missing) < min(int(rep.MissingRuns), MaxListed); k++ {
		if key := KeyOf(g.Run(k)); !have[key] {
			rep.Missing = append(rep.Missing, key)
		}
	}
	points := make([]int64, 0, len(byPoint))
	for p := range byPoint {
		points = append(points, p)
	}
	slices.Sort(points)
	for _, p := range points {
		es := byPoint[p]
		ps := PointStats{Point: g.Point(p), Runs: len(es)}
		for m := range rep.Metrics {
			xs := make([]float64, len(es))
			for i, e := range es {
				xs[i] = e.metrics[m]
			}
			st := Summarize(xs, rep.Precision)
			if st.Wide {
				rep.Wide++
			}
			ps.Stats = append(ps.Stats, st)
		}
		rep.Points = append(rep.Points, ps)
	}
	return nil
}

// Summarize returns the mean of xs and its 95% Student t interval (the
// replications are independent, so each is a batch of one for
// queueing.BatchMeans). precision > 0 flags an interval wider than
// precision × |mean| and estimates the replications needed.
func Summarize(xs []float64, precision float64) Stat {
	var bm queueing.BatchMeans
	sum := 0.0
	for _, x := range xs {
		bm.AddBatch(x, 1)
		sum += x
	}
	st := Stat{N: len(xs), Mean: sum / float64(len(xs)), Low: math.NaN(), High: math.NaN(), HalfWidth: math.NaN()}
	iv, err := bm.Interval()
	if err != nil {
		return st
	}
	st.Mean, st.Low, st.High, st.HalfWidth = iv.Mean, iv.Low, iv.High, iv.HalfWidth
	if precision > 0 && iv.HalfWidth > precision*math.Abs(iv.Mean) {
		st.Wide = true
		st.Needed = needed(iv.StdErr*math.Sqrt(float64(iv.Batches)), precision*math.Abs(iv.Mean), iv.Batches)
	}
	return st
}

// maxNeeded is the most replications needed reports; beyond it, −1.
const maxNeeded = 1_000_000_000

// needed returns the fewest replications n ≥ from whose interval half-width
// t(n−1)·sd/√n is at most target, or −1 when target is 0 or it takes more
// than a billion. The half-width falls as n grows, so n is found by
// bisection: a few dozen steps whatever the numbers.
func needed(sd, target float64, from int) int {
	from = max(from, 2)
	fits := func(n int) bool { return queueing.TQuantile975(n-1)*sd/math.Sqrt(float64(n)) <= target }
	if !(target > 0) || math.IsInf(sd, 0) || math.IsNaN(sd) || from > maxNeeded || !fits(maxNeeded) {
		return -1
	}
	lo, hi := from, maxNeeded // fits(hi); the answer is in [lo, hi]
	for lo < hi {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// pointValues reads a point object's names and values in their order; a
// string value is unquoted, numbers and true/false are kept as written.
func pointValues(raw json.RawMessage) (names, values []string, err error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if _, err := d.Token(); err != nil {
		return nil, nil, err
	}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, nil, err
		}
		name, _ := t.(string)
		if !Printable(name) {
			return nil, nil, fmt.Errorf(`"point" holds the name %q, which is not printable text`, name)
		}
		v, err := d.Token()
		if err != nil {
			return nil, nil, err
		}
		switch v := v.(type) {
		case string:
			if !Printable(v) {
				return nil, nil, fmt.Errorf(`"point" value of %s is %q, which is not printable text`, name, v)
			}
			values = append(values, v)
		case json.Number:
			values = append(values, v.String())
		case bool:
			values = append(values, fmt.Sprint(v))
		default:
			return nil, nil, fmt.Errorf(`"point" value of %s is not a string, number or true/false`, name)
		}
		names = append(names, name)
	}
	return names, values, nil
}

// MetricValues picks the metrics (summary keys; a dotted name such as
// P.avg_wait reaches into a nested object) out of a summary, a JSON
// object. A name the summary has no number for is an error that lists the
// numbers it has.
func MetricValues(raw json.RawMessage, metrics []string) ([]float64, error) {
	var obj map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&obj); err != nil {
		return nil, err
	}
	out := make([]float64, len(metrics))
	for i, m := range metrics {
		var v any = obj
		for part := range strings.SplitSeq(m, ".") {
			o, _ := v.(map[string]any)
			v = o[part]
		}
		n, ok := v.(json.Number)
		if !ok {
			keys := NumericKeys(obj, "")
			list := quoteList(keys[:min(len(keys), maxKeysListed)])
			if len(keys) > maxKeysListed {
				list += fmt.Sprintf(" and %d more", len(keys)-maxKeysListed)
			}
			return nil, fmt.Errorf("--metric %s: the summary has no number called %s; it has %s", m, m, list)
		}
		f, err := n.Float64()
		if err != nil {
			return nil, fmt.Errorf("--metric %s: %v", m, err)
		}
		out[i] = f
	}
	return out, nil
}

// maxKeysListed bounds the summary keys an unknown --metric lists: a
// results file may hold any number.
const maxKeysListed = 60

// quoteList joins texts read from a file for a message, each escaped when
// it is not printable and cut to 64 bytes.
func quoteList(list []string) string {
	out := make([]string, len(list))
	for i, s := range list {
		if len(s) > 64 {
			s = s[:64] + "…"
		}
		if !Printable(s) {
			s = strconv.Quote(s)
		}
		out[i] = s
	}
	return strings.Join(out, ", ")
}

// NumericKeys lists a summary's numeric keys, nested ones dotted, sorted.
func NumericKeys(obj map[string]any, prefix string) []string {
	var keys []string
	for k, v := range obj {
		switch v := v.(type) {
		case json.Number:
			keys = append(keys, prefix+k)
		case map[string]any:
			keys = append(keys, NumericKeys(v, prefix+k+".")...)
		}
	}
	slices.Sort(keys)
	return keys
}

func inputNames(inputs []Input) string {
	var ns []string
	for _, in := range inputs {
		ns = append(ns, in.Name)
	}
	return strings.Join(ns, ", ")
}
