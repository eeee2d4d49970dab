package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/lbsim/lbsim/sim"
)

// HashTarget is the number of periodic hashes a recording aims for: the
// interval is the smallest of 1, 2, 5, 10, 20, 50 … cycles that gives at
// most this many. 32 hashes cost 128 bytes and locate a divergence within
// 1/32 of the run.
const HashTarget = 32

// HashEvery returns the interval of the periodic hashes of a run of n
// cycles.
func HashEvery(n int64) int64 {
	for e := int64(1); ; e *= 10 {
		for _, f := range [...]int64{1, 2, 5} {
			if checkpoints(n, e*f) <= HashTarget {
				return e * f
			}
		}
	}
}

// Recorder takes the hashes of a run that its caller steps, so a run that
// writes a timeline or a log needs no second pass. Call Observe after New
// and after every Step, then Snapshot at the end. Observe costs a
// comparison except at the few cycles where it hashes the model.
type Recorder struct {
	cfg    sim.Config
	every  int64
	next   int64
	hashes []uint32
	err    error
}

// NewRecorder starts recording a run of cfg, which must be the
// configuration the model was built with.
func NewRecorder(cfg sim.Config) *Recorder {
	every := HashEvery(cfg.Cycles)
	return &Recorder{cfg: cfg.Clone(), every: every, next: every}
}

// Next returns the next cycle Observe must see: a caller that jumps
// (Model.RunTo) stops there.
func (r *Recorder) Next() int64 { return r.next }

// Observe notes the model's state after a cycle. It must see every cycle
// that is a multiple of the hash interval.
func (r *Recorder) Observe(m *sim.Model) {
	t := m.Cycle()
	if t < r.next || r.err != nil {
		return
	}
	if t > r.next {
		r.err = fmt.Errorf("snapshot recorder: cycle %d was not observed", r.next)
		return
	}
	if t < r.cfg.Cycles {
		r.hashes = append(r.hashes, uint32(m.Hash()))
	}
	r.next += r.every
}

// Snapshot returns the snapshot of the run, which must have reached its
// last cycle.
func (r *Recorder) Snapshot(m *sim.Model) (Snapshot, error) {
	if r.err != nil {
		return Snapshot{}, r.err
	}
	if err := m.Err(); err != nil {
		return Snapshot{}, err
	}
	if !m.Done() {
		return Snapshot{}, fmt.Errorf("snapshot recorder: the run stopped at cycle %d of %d", m.Cycle(), r.cfg.Cycles)
	}
	if int64(len(r.hashes)) != checkpoints(r.cfg.Cycles, r.every) {
		return Snapshot{}, errors.New("snapshot recorder: not every cycle was observed")
	}
	return Snapshot{
		Model:   ModelVersion,
		Engine:  EngineVersion,
		Config:  r.cfg.Clone(),
		Changes: m.Changes(),
		Every:   r.every,
		Hashes:  slices.Clone(r.hashes),
		Final:   m.Hash(),
		Summary: m.Summary(),
	}, nil
}

// Record runs cfg with the changes scheduled and returns its snapshot.
func Record(cfg sim.Config, changes []sim.Change) (Snapshot, error) {
	m, err := sim.New(cfg)
	if err != nil {
		return Snapshot{}, err
	}
	if err := m.Schedule(changes...); err != nil {
		return Snapshot{}, err
	}
	r := NewRecorder(cfg)
	for !m.Done() {
		m.RunTo(r.Next()) // RunTo gives exactly the state stepping gives
		r.Observe(m)
	}
	return r.Snapshot(m)
}

// DivergenceError reports a replay that did not reproduce the recording.
type DivergenceError struct {
	// Cycle is the first cycle found to differ: the first periodic hash
	// that differs, the last cycle, or the cycle of a change that did not
	// take effect.
	Cycle int64
	// Matched is the last cycle known to agree (0: only the start).
	Matched int64
	// What says what differs.
	What string
}

// Error names the cycle, the last one that matched and what differs.
func (e *DivergenceError) Error() string {
	return fmt.Sprintf("replay diverged at cycle %d (it matched up to cycle %d): %s", e.Cycle, e.Matched, e.What)
}

// Replay re-simulates s, calling each (when not nil) after cycle 0 and
// after every later cycle, and checks every hash, the change log and the
// summary. It returns the model at the end. A run that does not reproduce
// gives a *DivergenceError (and the model where it stopped); a snapshot
// that cannot be run at all gives another error.
//
// A replay is bounded like any run (sim.DefaultMaxQueued queued requests):
// one that exceeds the bound stops with the model's *sim.QueueLimitError.
func Replay(s Snapshot, each func(*sim.Model)) (*sim.Model, error) {
	var stepEach func(*sim.Model) error
	if each != nil {
		stepEach = func(m *sim.Model) error { each(m); return nil }
	}
	return ReplayWith(s, stepEach)
}

// ReplayWith is Replay with options for the model, such as a lower
// sim.WithMaxQueued, and a per-cycle callback that may stop the replay by
// returning an error, which ReplayWith then returns with the model.
func ReplayWith(s Snapshot, each func(*sim.Model) error, opts ...sim.Option) (*sim.Model, error) {
	if s.Model != ModelVersion {
		return nil, &VersionError{What: "model", Got: uint64(s.Model), Want: ModelVersion}
	}
	n := s.Config.Cycles
	if s.Every < 1 || int64(len(s.Hashes)) != checkpoints(n, s.Every) {
		return nil, fmt.Errorf("snapshot hashes: %d hashes every %d cycles do not fit a run of %d cycles", len(s.Hashes), s.Every, n)
	}
	m, err := sim.New(s.Config, opts...)
	if err != nil {
		return nil, fmt.Errorf("snapshot config: %w", err)
	}
	if err := m.Schedule(s.Changes...); err != nil {
		return nil, fmt.Errorf("snapshot changes: %w", err)
	}
	if each != nil {
		if err := each(m); err != nil {
			return m, err
		}
	}
	next, i := s.Every, 0
	for !m.Done() {
		if each != nil {
			m.Step()
			if err := each(m); err != nil {
				return m, err
			}
		} else {
			m.RunTo(next) // RunTo gives exactly the state stepping gives
		}
		if err := m.Err(); err != nil {
			return m, err
		}
		if t := m.Cycle(); t == next && t < n {
			if got := uint32(m.Hash()); got != s.Hashes[i] {
				return m, &DivergenceError{Cycle: t, Matched: t - s.Every,
					What: fmt.Sprintf("state hash %08x, recorded %08x", got, s.Hashes[i])}
			}
			next += s.Every
			i++
		}
	}
	if err := m.Err(); err != nil {
		return m, err // stopped at cycle 0
	}
	matched := (n - 1) / s.Every * s.Every
	if got := m.Hash(); got != s.Final {
		return m, &DivergenceError{Cycle: n, Matched: matched, What: fmt.Sprintf("final state hash %016x, recorded %016x", got, s.Final)}
	}
	if got := m.Changes(); !slices.Equal(got, s.Changes) {
		return m, &DivergenceError{Cycle: n, Matched: matched, What: fmt.Sprintf("%d changes took effect, recorded %d", len(got), len(s.Changes))}
	}
	if what := diffSummary(s.Summary, m.Summary()); what != "" {
		return m, &DivergenceError{Cycle: n, Matched: matched, What: "summary " + what}
	}
	return m, nil
}

// Verify replays s without a per-cycle callback and returns its summary.
func Verify(s Snapshot) (sim.Summary, error) {
	m, err := Replay(s, nil)
	if err != nil {
		return sim.Summary{}, err
	}
	return m.Summary(), nil
}

// diffSummary names the first key of the JSON summary where want and got
// differ, or returns "".
func diffSummary(want, got sim.Summary) string {
	a, _ := json.Marshal(want)
	b, _ := json.Marshal(got)
	if string(a) == string(b) {
		return ""
	}
	var ma, mb map[string]any
	json.Unmarshal(a, &ma)
	json.Unmarshal(b, &mb)
	keys := make([]string, 0, len(ma))
	for k := range ma {
		keys = append(keys, k)
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if va, vb := fmt.Sprint(ma[k]), fmt.Sprint(mb[k]); va != vb {
			return fmt.Sprintf("%s: replayed %s, recorded %s", k, vb, va)
		}
	}
	return "differs"
}
