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
	"strings"

	"github.com/lbsim/lbsim/sim/queueing"
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
	Missing      []Key    // runs of the grid that no file holds
	Duplicates   []Key    // runs found more than once with the same result
	Conflicts    []Key    // runs found more than once with different results
	Partial      []string // files ending in a partial line (ignored)
	BaseSeeds    []uint64 // the base seeds seen (seed − replication); more than one is a mixed merge
	Precision    float64  // the --precision asked for; 0 = none
	Wide         int      // how many point metrics are wider than Precision allows
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
	return m.report(), nil
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
		m.names = names
	} else if !slices.Equal(m.names, names) {
		return fmt.Errorf("it varies %s, but the first line varies %s: these are different sweeps",
			strings.Join(names, ", "), strings.Join(m.names, ", "))
	}
	k := l.Key()
	var buf bytes.Buffer
	json.Compact(&buf, l.Summary)
	h := fnv.New64a()
	h.Write(buf.Bytes())
	sum := h.Sum64()
	if prev, dup := m.seen[k]; dup {
		if prev == sum {
			m.rep.Duplicates = append(m.rep.Duplicates, k)
		} else {
			m.rep.Conflicts = append(m.rep.Conflicts, k)
		}
		return nil
	}
	m.seen[k] = sum
	ms, err := metricValues(l.Summary, m.rep.Metrics)
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
func (m *merger) report() *Report {
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
	rep.build(m.entries, index)
	return rep
}

// build groups the entries by point, in grid order, and lists the missing runs.
func (rep *Report) build(entries []entry, index []map[string]int) {
	g := &Grid{Dims: rep.Dims, Replications: rep.Replications}
	byPoint := map[int64][]entry{}
	for _, e := range entries {
		var p int64
		for i, v := range e.values {
			p = p*int64(len(rep.Dims[i].Values)) + int64(index[i][v])
		}
		byPoint[p] = append(byPoint[p], e)
	}
	have := map[Key]bool{}
	for _, e := range entries {
		have[e.key] = true
	}
	for p := range g.Points() {
		pt := g.Point(p)
		for r := range rep.Replications {
			if k := KeyOf(Run{Point: pt, Replication: r}); !have[k] {
				rep.Missing = append(rep.Missing, k)
			}
		}
		es := byPoint[p]
		if len(es) == 0 {
			continue
		}
		ps := PointStats{Point: pt, Runs: len(es)}
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

// needed returns the fewest replications n ≥ from whose interval half-width
// t(n−1)·sd/√n is at most target, or −1 when target is 0 or it takes more
// than a billion.
func needed(sd, target float64, from int) int {
	if target <= 0 {
		return -1
	}
	const z = 1.959963984540054
	n := max(from, int(math.Ceil(math.Pow(z*sd/target, 2))))
	for ; n <= 1e9; n++ {
		if queueing.TQuantile975(n-1)*sd/math.Sqrt(float64(n)) <= target {
			return n
		}
	}
	return -1
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
		v, err := d.Token()
		if err != nil {
			return nil, nil, err
		}
		switch v := v.(type) {
		case string:
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

// metricValues picks the metrics out of a summary.
func metricValues(raw json.RawMessage, metrics []string) ([]float64, error) {
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
			return nil, fmt.Errorf("--metric %s: the summary has no number called %s; it has %s", m, m, strings.Join(numericKeys(obj, ""), ", "))
		}
		f, err := n.Float64()
		if err != nil {
			return nil, fmt.Errorf("--metric %s: %v", m, err)
		}
		out[i] = f
	}
	return out, nil
}

// numericKeys lists the summary's numeric keys, nested ones dotted.
func numericKeys(obj map[string]any, prefix string) []string {
	var keys []string
	for k, v := range obj {
		switch v := v.(type) {
		case json.Number:
			keys = append(keys, prefix+k)
		case map[string]any:
			keys = append(keys, numericKeys(v, prefix+k+".")...)
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
