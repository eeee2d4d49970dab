package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lbsim/lbsim/sim"
)

// ANSI colours of the verbose log, by event kind.
var eventColors = map[sim.EventKind]string{
	sim.Arrive:    "\x1b[2m",    // dim
	sim.Reject:    "\x1b[31m",   // red
	sim.Discard:   "\x1b[35m",   // magenta
	sim.Dispatch:  "\x1b[36m",   // cyan
	sim.Complete:  "\x1b[32m",   // green
	sim.ScaleUp:   "\x1b[1;33m", // bold yellow
	sim.ScaleDown: "\x1b[1;34m", // bold blue
	sim.Retire:    "\x1b[34m",   // blue
	sim.Leave:     "\x1b[34m",   // blue
}

func writeEvent(w io.StringWriter, e sim.Event, color bool) {
	if color {
		w.WriteString(eventColors[e.Kind])
		w.WriteString(e.String())
		w.WriteString("\x1b[0m\n")
		return
	}
	w.WriteString(e.String())
	w.WriteString("\n")
}

func writeStatus(w io.Writer, m *sim.Model) {
	p, t := m.Pool(), m.Totals()
	fmt.Fprintf(w, "cycle %9d  queue %7d  servers %4d (busy %d, idle %d, retiring %d)  completed %d  rejected %d  discarded %d  scale +%d/-%d\n",
		m.Cycle(), m.QueueLen(), p.Live, p.Busy, p.Idle, p.Retiring, t.Completed, t.Rejected, t.Discarded, t.ScaleUps, t.ScaleDowns)
}

func pct(part, whole int64) string {
	if whole == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(part)/float64(whole))
}

func holds(ok bool) string {
	if ok {
		return "holds"
	}
	return "DOES NOT HOLD"
}

// appendSummaryText writes the readable summary of SPEC §2/§4, ending with
// the two accounting lines.
func appendSummaryText(b []byte, cfg *sim.Config, seedGiven bool, m *sim.Model) []byte {
	s := m.Summary()
	var w strings.Builder
	seedNote := ""
	if !seedGiven {
		seedNote = " (chosen at random)"
	}
	fmt.Fprintf(&w, "\nSummary after %d cycles\n", s.Cycles)
	fmt.Fprintf(&w, "  seed                %d%s\n", s.Seed, seedNote)
	if cfg.Trace == nil {
		fmt.Fprintf(&w, "  task time           %d..%d cycles\n", cfg.TaskMin, cfg.TaskMax)
	}
	fmt.Fprintf(&w, "Requests\n")
	fmt.Fprintf(&w, "  generated           %d\n", s.Generated)
	fmt.Fprintf(&w, "  rejected            %d (%s, firewall)\n", s.Rejected, pct(s.Rejected, s.Generated))
	fmt.Fprintf(&w, "  discarded           %d (queue full)\n", s.Discarded)
	fmt.Fprintf(&w, "  admitted            %d\n", s.Admitted)
	fmt.Fprintf(&w, "  completed           %d\n", s.Completed)
	fmt.Fprintf(&w, "  in service          %d\n", s.InService)
	fmt.Fprintf(&w, "  queue               initial %d, final %d, peak %d\n", s.InitialQueue, s.FinalQueue, s.PeakQueue)
	fmt.Fprintf(&w, "  dispatched          %d\n", s.Dispatched)
	fmt.Fprintf(&w, "  average wait        %.2f cycles (total %d, dispatched requests only)\n", s.AvgWait, s.TotalWait)
	if s.Requeued > 0 {
		fmt.Fprintf(&w, "  requeued            %d\n", s.Requeued)
	}
	fmt.Fprintf(&w, "Servers\n")
	fmt.Fprintf(&w, "  at the end          %d live: %d busy, %d idle, %d retiring\n", s.ServersFinal, s.ServersBusy, s.ServersIdle, s.ServersRetiring)
	fmt.Fprintf(&w, "  pool size           %d at start, min %d, peak %d\n", cfg.Servers, s.ServersMin, s.ServersPeak)
	fmt.Fprintf(&w, "  scaling             %d scale-ups, %d scale-downs\n", s.ScaleUps, s.ScaleDowns)
	fmt.Fprintf(&w, "Accounting\n")
	ok1 := s.Generated == s.Rejected+s.Discarded+s.Admitted
	ok2 := s.Admitted == s.Completed+s.FinalQueue+s.InService
	fmt.Fprintf(&w, "  generated = rejected + discarded + admitted:  %d = %d + %d + %d  %s\n", s.Generated, s.Rejected, s.Discarded, s.Admitted, holds(ok1))
	fmt.Fprintf(&w, "  admitted = completed + queued + in service:   %d = %d + %d + %d  %s\n", s.Admitted, s.Completed, s.FinalQueue, s.InService, holds(ok2))
	return append(b, w.String()...)
}

// progress draws a bar on a terminal's stderr once a run has taken more
// than a second; it never writes anywhere else.
type progress struct {
	w       io.Writer
	enabled bool
	active  bool
	total   int64
	start   time.Time
	last    time.Time
}

func newProgress(w io.Writer, enabled bool, total int64) *progress {
	now := time.Now()
	return &progress{w: w, enabled: enabled, total: total, start: now, last: now}
}

// update redraws the bar at most ten times a second; flush is flushed first
// so that status lines and the bar do not interleave.
func (p *progress) update(done int64, flush interface{ Flush() error }) {
	if !p.enabled {
		return
	}
	now := time.Now()
	if now.Sub(p.start) < time.Second || now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	flush.Flush()
	const width = 40
	n := int(int64(width) * done / p.total)
	elapsed := now.Sub(p.start)
	eta := time.Duration(float64(elapsed) * float64(p.total-done) / float64(max(done, 1)))
	fmt.Fprintf(p.w, "\r[%s%s] %3d%%  cycle %d/%d  eta %s ", strings.Repeat("=", n), strings.Repeat(" ", width-n),
		100*done/p.total, done, p.total, eta.Round(time.Second))
	p.active = true
}

func (p *progress) clear() {
	if p.active {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", 100))
		p.active = false
	}
}

// atomicFile is an output written to a temporary file beside its target and
// renamed into place only when complete, so a failed run never leaves a
// partial file that looks finished.
type atomicFile struct {
	f    *os.File
	w    *bufio.Writer
	path string
}

// outputs is the set of files a run writes; they are committed together.
type outputs struct{ files []*atomicFile }

func (o *outputs) create(path string) (*atomicFile, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %v", path, err)
	}
	af := &atomicFile{f: f, w: bufio.NewWriterSize(f, 256<<10), path: path}
	o.files = append(o.files, af)
	return af, nil
}

func (o *outputs) commit() error {
	for _, af := range o.files {
		if err := af.w.Flush(); err != nil {
			return fmt.Errorf("writing %s: %v", af.path, err)
		}
		if err := af.f.Chmod(0o644); err != nil {
			return fmt.Errorf("writing %s: %v", af.path, err)
		}
		if err := af.f.Close(); err != nil {
			return fmt.Errorf("writing %s: %v", af.path, err)
		}
		if err := os.Rename(af.f.Name(), af.path); err != nil {
			return fmt.Errorf("writing %s: %v", af.path, err)
		}
	}
	o.files = nil
	return nil
}

// abort removes every temporary file not yet committed.
func (o *outputs) abort() {
	for _, af := range o.files {
		af.f.Close()
		os.Remove(af.f.Name())
	}
	o.files = nil
}
