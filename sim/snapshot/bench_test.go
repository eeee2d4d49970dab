package snapshot

import (
	"testing"
	"time"

	"github.com/lbsim/lbsim/sim"
)

func defaultRun(b *testing.B) (sim.Config, Snapshot) {
	cfg := sim.DefaultConfig()
	cfg.Seed = 42
	s, err := Record(cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	return cfg, s
}

// BenchmarkRun is a plain run of the default configuration: the baseline.
func BenchmarkRun(b *testing.B) {
	cfg, _ := defaultRun(b)
	for b.Loop() {
		m, _ := sim.New(cfg)
		m.Run()
	}
}

// BenchmarkReplay replays the default run with every hash check.
func BenchmarkReplay(b *testing.B) {
	_, s := defaultRun(b)
	for b.Loop() {
		if _, err := Verify(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplayVsRun alternates a plain run and a checked replay of the
// default configuration and reports their time ratio (target ≤ 1.5).
func BenchmarkReplayVsRun(b *testing.B) {
	cfg, s := defaultRun(b)
	data, _ := Encode(s)
	var run, replay time.Duration
	for b.Loop() {
		t0 := time.Now()
		m, _ := sim.New(cfg)
		m.Run()
		t1 := time.Now()
		d, err := Decode(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Verify(d); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		run += t1.Sub(t0)
		replay += t2.Sub(t1)
	}
	b.ReportMetric(float64(replay)/float64(run), "replay/run")
}

// BenchmarkRecord runs the default configuration with a Recorder and
// encodes the snapshot: the cost of run --snapshot.
func BenchmarkRecord(b *testing.B) {
	cfg, _ := defaultRun(b)
	for b.Loop() {
		s, err := Record(cfg, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Encode(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSizes reports the snapshot and link sizes of the default run
// and of a run with 1,000 changes, and times encoding and decoding.
func BenchmarkSizes(b *testing.B) {
	cfg, s := defaultRun(b)
	s1000, err := Record(cfg, thousandChanges(cfg.Cycles))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		s    Snapshot
	}{{"default", s}, {"1000changes", s1000}} {
		b.Run(c.name, func(b *testing.B) {
			var data []byte
			for b.Loop() {
				data, _ = Encode(c.s)
				if _, err := Decode(data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(data)), "bytes")
			b.ReportMetric(float64(len(Fragment(data))), "link-chars")
		})
	}
}
