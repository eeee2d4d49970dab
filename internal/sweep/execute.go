package sweep

import (
	"context"
	"fmt"
	"io"
	"iter"
	"sync"
)

// RunFunc performs one run and returns its summary as a JSON object.
type RunFunc func(Run) ([]byte, error)

// Execute performs the runs of todo (run numbers of g, ascending) on jobs
// workers and writes each run's line (see [AppendLine]) to w in todo's
// order, one Write call per line. At most a few lines per worker wait for
// an earlier run, so memory does not grow with the number of runs.
//
// After each written line it calls written, if not nil, with the number of
// lines written so far. When ctx is cancelled it starts no more runs,
// writes the lines of those already started, and returns ctx's error. The
// first error of a run or of w stops it likewise and is returned, naming
// the run.
func Execute(ctx context.Context, g *Grid, todo iter.Seq[int64], jobs int, do RunFunc, w io.Writer, written func(n int64)) error {
	jobs = max(jobs, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type task struct {
		seq int64
		run Run
	}
	type result struct {
		seq  int64
		line []byte
		err  error
	}
	window := 4 * jobs
	slots := make(chan struct{}, window) // a slot per run started and not yet written
	tasks := make(chan task)
	results := make(chan result, window)

	go func() { // the producer: runs in order, while there are free slots
		defer close(tasks)
		var seq int64
		for k := range todo {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case tasks <- task{seq, g.Run(k)}:
				seq++
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range tasks {
				sum, err := do(t.run)
				var line []byte
				if err == nil {
					line, err = AppendLine(nil, t.run, g.Flags, sum)
				}
				if err != nil {
					err = fmt.Errorf("run %d (%v, replication %d, seed %d): %w", t.run.Index, t.run.Point, t.run.Replication, t.run.Seed, err)
				}
				results <- result{t.seq, line, err}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	var firstErr error
	pending := map[int64][]byte{}
	var next int64
	for r := range results {
		if r.err != nil {
			if firstErr == nil {
				firstErr = r.err
				cancel()
			}
			continue
		}
		pending[r.seq] = r.line
		for firstErr == nil {
			line, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			if _, err := w.Write(line); err != nil {
				firstErr = fmt.Errorf("writing the results: %w", err)
				cancel()
				break
			}
			next++
			<-slots
			if written != nil {
				written(next)
			}
		}
	}
	if firstErr != nil {
		return firstErr
	}
	return context.Cause(ctx)
}
