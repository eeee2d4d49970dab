package snapshot

import (
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/lbsim/lbsim/sim"
)

// FormatComparison is the format version of a comparison: several runs
// (lanes) on the same requests in one file. A single run is still written
// as FormatVersion, so older readers keep reading single runs, and refuse
// a comparison with a clear message instead of replaying one lane of it.
const FormatComparison = 2

// MaxLanes is the most runs a comparison holds.
const MaxLanes = 4

// Lane is one run of a comparison, with its label.
type Lane struct {
	Label string
	Snapshot
}

// Comparison is several runs of the same requests under different
// balancers (lbsim compare, the page's compare view): one Lane each.
type Comparison struct {
	Lanes []Lane
}

// ErrComparison is returned by Decode for a file that holds a comparison:
// read it with DecodeComparison.
var ErrComparison = errors.New("snapshot: this file holds a comparison of several runs; open it as a comparison")

// LaneSpec is one lane to record: its label, starting configuration and
// changes.
type LaneSpec struct {
	Label   string
	Config  sim.Config
	Changes []sim.Change
}

// RecordComparison runs every lane and returns the comparison.
func RecordComparison(specs []LaneSpec) (Comparison, error) {
	if err := checkLanes(len(specs)); err != nil {
		return Comparison{}, err
	}
	var c Comparison
	for _, sp := range specs {
		s, err := Record(sp.Config, sp.Changes)
		if err != nil {
			return Comparison{}, fmt.Errorf("lane %q: %w", sp.Label, err)
		}
		c.Lanes = append(c.Lanes, Lane{Label: sp.Label, Snapshot: s})
	}
	return c, nil
}

func checkLanes(n int) error {
	if n < 1 || n > MaxLanes {
		return fmt.Errorf("snapshot: a comparison holds 1 to %d runs, not %d", MaxLanes, n)
	}
	return nil
}

// MaxLabel bounds a lane's label, in bytes.
const MaxLabel = 200

// EncodeComparison returns the .lbsnap bytes of c (format version
// FormatComparison), after checking every lane as Encode does.
func EncodeComparison(c Comparison) ([]byte, error) {
	if err := checkLanes(len(c.Lanes)); err != nil {
		return nil, err
	}
	cb := compareBody{Model: ModelVersion, Engine: EngineVersion}
	for i := range c.Lanes {
		l := &c.Lanes[i]
		if len(l.Label) > MaxLabel {
			return nil, fmt.Errorf("snapshot: lane %d's label is %d bytes; at most %d allowed", i+1, len(l.Label), MaxLabel)
		}
		b, err := l.body()
		if err != nil {
			return nil, fmt.Errorf("lane %q: %w", l.Label, err)
		}
		b.Label = l.Label
		cb.Lanes = append(cb.Lanes, b)
		if l.Model != 0 {
			cb.Model = uint32(l.Model)
		}
	}
	payload, err := cb.MarshalMsg(nil)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	return sealed(FormatComparison, payload)
}

// DecodeComparison reads a comparison, or a single run as a comparison of
// one lane (labelled "run"), with every check of Decode.
func DecodeComparison(data []byte) (Comparison, error) {
	s, err := Decode(data)
	if err == nil {
		return Comparison{Lanes: []Lane{{Label: "run", Snapshot: s}}}, nil
	}
	if !errors.Is(err, ErrComparison) {
		return Comparison{}, err
	}
	var env envelope
	if _, err := env.UnmarshalMsg(data); err != nil { // Decode read it already
		return Comparison{}, fmt.Errorf("snapshot: %w", msgpError(err))
	}
	if crc32.Checksum(env.Payload, castagnoli) != env.Sum {
		return Comparison{}, ErrChecksum
	}
	var cb compareBody
	rest, err := cb.UnmarshalMsg(env.Payload)
	if err != nil {
		return Comparison{}, fmt.Errorf("snapshot payload: %w", msgpError(err))
	}
	if len(rest) > 0 {
		return Comparison{}, fmt.Errorf("snapshot payload: %d unexpected bytes after the end", len(rest))
	}
	if cb.Model != ModelVersion {
		return Comparison{}, &VersionError{What: "model", Got: uint64(cb.Model), Want: ModelVersion}
	}
	if err := checkLanes(len(cb.Lanes)); err != nil {
		return Comparison{}, err
	}
	var c Comparison
	for i := range cb.Lanes {
		b := &cb.Lanes[i]
		if len(b.Label) > MaxLabel {
			return Comparison{}, fmt.Errorf("snapshot lane %d: label of %d bytes; at most %d allowed", i+1, len(b.Label), MaxLabel)
		}
		s, err := b.snapshot()
		if err != nil {
			return Comparison{}, fmt.Errorf("lane %d: %w", i+1, err)
		}
		c.Lanes = append(c.Lanes, Lane{Label: b.Label, Snapshot: s})
	}
	return c, nil
}

// VerifyComparison replays every lane and checks it reproduces; it
// returns the lanes' summaries.
func VerifyComparison(c Comparison) ([]sim.Summary, error) {
	var sums []sim.Summary
	for _, l := range c.Lanes {
		s, err := Verify(l.Snapshot)
		if err != nil {
			return nil, fmt.Errorf("lane %q: %w", l.Label, err)
		}
		sums = append(sums, s)
	}
	return sums, nil
}
