package sweep

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

// lineWriter records each Write and checks it is exactly one whole line.
type lineWriter struct {
	t     *testing.T
	lines []string
}

func (w *lineWriter) Write(b []byte) (int, error) {
	if strings.Count(string(b), "\n") != 1 || b[len(b)-1] != '\n' {
		w.t.Errorf("a write of %q is not one whole line", b)
	}
	w.lines = append(w.lines, string(b))
	return len(b), nil
}

func every(n int64) iter.Seq[int64] {
	return func(yield func(int64) bool) {
		for k := range n {
			if !yield(k) {
				return
			}
		}
	}
}

// jittery returns a run function that takes a random short time, so runs
// finish out of order, and whose summary names the run.
func jittery(seed uint64) RunFunc {
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(seed, 1))
	return func(r Run) ([]byte, error) {
		mu.Lock()
		d := time.Duration(rng.IntN(300)) * time.Microsecond
		mu.Unlock()
		time.Sleep(d)
		return fmt.Appendf(nil, `{"run": %d}`, r.Index), nil
	}
}

func TestExecuteWritesInOrder(t *testing.T) {
	g, _ := NewGrid([]Dimension{{"a", []string{"1", "2", "3"}}}, 20, 1)
	for _, jobs := range []int{1, 2, 7} {
		w := &lineWriter{t: t}
		var last int64
		err := Execute(context.Background(), g, every(g.Runs()), jobs, jittery(uint64(jobs)), w, func(n int64) { last = n })
		if err != nil {
			t.Fatal(err)
		}
		if len(w.lines) != 60 || last != 60 {
			t.Fatalf("jobs %d: %d lines, written reported %d", jobs, len(w.lines), last)
		}
		for k, l := range w.lines {
			want, _ := AppendLine(nil, g.Run(int64(k)), g.Flags, fmt.Appendf(nil, `{"run":%d}`, k))
			if l != string(want) {
				t.Errorf("jobs %d line %d: %s, want %s", jobs, k, l, want)
			}
		}
	}
}

func TestExecuteStops(t *testing.T) {
	g, _ := NewGrid(nil, 1000, 1)
	// Cancelled after 10 lines: the lines written are the first ones, in order.
	ctx, cancel := context.WithCancel(context.Background())
	w := &lineWriter{t: t}
	err := Execute(ctx, g, every(g.Runs()), 4, jittery(3), w, func(n int64) {
		if n == 10 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || len(w.lines) < 10 || len(w.lines) > 10+4*4 {
		t.Fatalf("cancelled: %v after %d lines", err, len(w.lines))
	}
	for k, l := range w.lines {
		if !strings.Contains(l, fmt.Sprintf(`"replication":%d,`, k)) {
			t.Errorf("line %d is %s", k, l)
		}
	}
	// A failing run stops the sweep; the error names it; only the runs
	// before it are written.
	w = &lineWriter{t: t}
	err = Execute(context.Background(), g, every(g.Runs()), 3, func(r Run) ([]byte, error) {
		if r.Index == 17 {
			return nil, errors.New("boom")
		}
		return []byte(`{}`), nil
	}, w, nil)
	if err == nil || !strings.Contains(err.Error(), "run 17") || !strings.Contains(err.Error(), "boom") || len(w.lines) > 17 {
		t.Errorf("failing run: %v after %d lines", err, len(w.lines))
	}
}

// TestExecuteBoundsWaitingLines checks what keeps memory flat: while an
// early run is slow, at most a few runs per worker go ahead of it, so the
// lines waiting for it stay few however long the sweep is.
func TestExecuteBoundsWaitingLines(t *testing.T) {
	g, _ := NewGrid(nil, 10_000, 1)
	const jobs = 3
	release := make(chan struct{})
	var mu sync.Mutex
	started, released := 0, false
	do := func(r Run) ([]byte, error) {
		mu.Lock()
		started++
		if started > 4*jobs && !released {
			t.Errorf("run %d started while run 0 was still running: more than %d lines would wait", r.Index, 4*jobs-1)
		}
		mu.Unlock()
		if r.Index == 0 {
			<-release
		}
		return []byte(`{}`), nil
	}
	done := make(chan error)
	w := &lineWriter{t: t}
	go func() { done <- Execute(context.Background(), g, every(g.Runs()), jobs, do, w, nil) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := started
		mu.Unlock()
		if n == 4*jobs || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	// A moment for a broken bound to show (a pass does not depend on it).
	time.Sleep(20 * time.Millisecond)
	mu.Lock()
	released = true
	mu.Unlock()
	close(release)
	if err := <-done; err != nil || len(w.lines) != 10_000 {
		t.Fatalf("%v, %d lines", err, len(w.lines))
	}
}
