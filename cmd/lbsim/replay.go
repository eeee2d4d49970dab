package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
	"github.com/lbsim/lbsim/version"
)

const replayHelp = `Usage: lbsim replay [flags] FILE
       lbsim replay [flags] --link URL

Re-runs a snapshot written by 'lbsim run --snapshot' (or a share link),
checks that every state hash, the changes and the summary come out exactly
as recorded, and prints the summary. If the run does not reproduce, it says
at which cycle and exits with status 1; a damaged or unreadable snapshot
exits with status 2.

Example:
  lbsim run --seed 42 --set 500:rate=0.9 --snapshot run.lbsnap
  lbsim replay run.lbsnap --json - --timeline timeline.csv
  lbsim replay --link "$(lbsim share --base https://example.org/lbsim/ run.lbsnap)"
  lbsim share run.lbsnap > link.txt
  lbsim replay --link - < link.txt     (a link longer than one argument may be)

Flags:
`

const shareHelp = `Usage: lbsim share [--base URL] FILE

Prints the share link of a snapshot: the URL fragment '#r=' followed by the
snapshot in base64url, or the whole link with --base. Opening the link on
the lbsim page replays the run; 'lbsim replay --link' accepts it too.

Example:
  lbsim run --seed 42 --snapshot run.lbsnap
  lbsim share --base https://example.org/lbsim/ run.lbsnap

Flags:
`

// parseInterspersed parses flags that may come before or after the
// positional arguments, which it returns: everything after "--" is one
// (parseFlags reads flags in any position, so one parse is all).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	return fs.Args(), nil
}

// replayOptions is what lbsim replay was asked to do.
type replayOptions struct {
	jsonPath, timelinePath, link string
	maxQueued                    int
}

// replayCommand is lbsim replay: its options, flags and run (replayRun).
var replayCommand = subcommand[replayOptions]{
	commandSpec: commandSpec{name: "replay", help: replayHelp, positional: true, hint: "the flags and an example"},
	flags: func(_ *cli, o *replayOptions) (*flag.FlagSet, *string) {
		o.maxQueued = sim.DefaultMaxQueued
		return replayFlags(o), nil
	},
	run: func(c *cli, o *replayOptions, cl commandLine) error { return c.replayRun(o, cl.args) },
}

func (c *cli) replay(args []string) int { return runCommand(c, replayCommand, args) }

// replayFlags defines replay's flags.
func replayFlags(o *replayOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.jsonPath, "json", "", "write the JSON summary to `file` ('-' = stdout, then nothing else goes there)")
	fs.StringVar(&o.timelinePath, "timeline", "", "rebuild the timeline: one CSV row per cycle to `file` ('-' = stdout, then nothing else goes there)")
	fs.StringVar(&o.link, "link", "", "replay the snapshot of a share `URL` (or its #r= fragment) instead of a file;\n'-' reads the link from standard input (a long link exceeds what one argument may hold)")
	intVar(fs, &o.maxQueued, "max-queued", o.maxQueued, fmt.Sprintf("stop the replay (exit 1) when more requests than this are queued (1..%d)", sim.MaxQueuedLimit))
	return fs
}

// replayRun replays the snapshot named by pos or --link, checks it
// reproduces, and writes what was asked; its error is a *cmdError.
func (c *cli) replayRun(o *replayOptions, pos []string) error {
	if o.maxQueued < 1 || o.maxQueued > sim.MaxQueuedLimit {
		return usageErr("--max-queued %d is not allowed: must be from 1 to %d", o.maxQueued, sim.MaxQueuedLimit)
	}
	var outs outputs
	name, data, err := c.snapshotSource(o, pos, &outs)
	if err != nil {
		return err
	}
	name = printable(name)
	snap, err := snapshot.Decode(data)
	isComparison := errors.Is(err, snapshot.ErrComparison)
	if err != nil && !isComparison {
		return failErr(exitUsage, "%s: %v", name, err)
	}
	if isComparison && o.timelinePath != "" {
		return usageErr("--timeline: %s holds a comparison of several runs, and a timeline is one run's: replay without --timeline", name)
	}
	// Every path is checked before any file is created.
	var timelineFile, jsonFile *atomicFile
	outs.stdout = c.stdout // either output may be "-"
	if err := outs.wantAll(planned{"--timeline", o.timelinePath, &timelineFile}, planned{"--json", o.jsonPath, &jsonFile}); err != nil {
		return usageErr("%v", err)
	}
	var cmp snapshot.Comparison
	if isComparison {
		if cmp, err = snapshot.DecodeComparison(data); err != nil {
			return failErr(exitUsage, "%s: %v", name, err)
		}
	}
	defer outs.abort()
	stop := c.watchInterrupts(&outs, nil)
	defer stop()
	if err := outs.open(); err != nil {
		return failErr(exitUsage, "%v", err)
	}
	if isComparison {
		if code := c.replayComparison(name, cmp, o.jsonPath, jsonFile, &outs, o.maxQueued); code != exitOK {
			return exited(code) // replayComparison has said why
		}
		return nil
	}
	m, err := c.replayOne(name, snap, timelineFile, o.maxQueued)
	if err != nil {
		return err
	}
	human := c.humanOut(&outs)
	writeReplayText(human, name, snap, m)
	sum := m.Summary()
	c.writeJSON(version.Stamp(&sum), jsonFile)
	if code := c.commit(&outs, "replay"); code != exitOK {
		return exited(code) // commit has said why
	}
	return nil
}

// snapshotSource reads the snapshot's bytes from --link (or standard input
// with --link -) or from the one FILE in pos, and names it.
func (c *cli) snapshotSource(o *replayOptions, pos []string, outs *outputs) (name string, data []byte, err error) {
	link := o.link
	switch {
	case link != "" && len(pos) == 0:
		name = "--link"
		if link == "-" {
			name = "--link -"
			if link, err = readLink(c.stdin); err != nil {
				return "", nil, usageErr("--link -: %v", err)
			}
		}
		if data, err = snapshot.LinkData(link); err != nil {
			return "", nil, failErr(exitUsage, "%s: %v", name, err)
		}
	case link == "" && len(pos) == 1:
		name = pos[0]
		outs.addInput("the snapshot", name)
		if data, err = snapshot.ReadFile(name); err != nil {
			return "", nil, failErr(exitUsage, "%v", err)
		}
	case link == "" && len(pos) == 0:
		return "", nil, usageErr("name the snapshot to replay: lbsim replay FILE, or lbsim replay --link URL")
	case link != "" && len(pos) > 0:
		return "", nil, usageErr("give a snapshot FILE or --link URL, not both (got %s and --link)", quoteCut(pos[0]))
	default:
		return "", nil, usageErr("want one snapshot FILE, got %d: %s", len(pos), quoteCut(strings.Join(pos, " ")))
	}
	return name, data, nil
}

// replayOne re-runs one run's snapshot, writing its timeline when asked,
// and checks that it reproduces.
func (c *cli) replayOne(name string, snap snapshot.Snapshot, timelineFile *atomicFile, maxQueued int) (*sim.Model, error) {
	interrupted := errors.New("interrupted")
	var each func(*sim.Model) error
	if timelineFile != nil {
		timeline := newTimelineOut(timelineFile, &snap.Config, snap.Changes)
		each = func(m *sim.Model) error {
			timeline.write(m)
			if c.interrupted() {
				return interrupted
			}
			return nil
		}
	}
	m, err := snapshot.ReplayWith(snap, each, sim.WithMaxQueued(maxQueued))
	var de *snapshot.DivergenceError
	var le *sim.QueueLimitError
	switch {
	case (errors.Is(err, interrupted) || c.interrupted()) && m != nil:
		return nil, failErr(c.interruptCode(), "interrupted at cycle %d; %s", m.Cycle(), stoppedAt(m.Cycle(), timelineFile))
	case errors.As(err, &de):
		return nil, failErr(exitFailed, "%s: %v", name, err)
	case errors.As(err, &le):
		return nil, failErr(exitFailed, "%s: stopped at cycle %d: %d requests queued, more than --max-queued %d allows; raise --max-queued (up to %d) to replay it. No output was written.",
			name, le.Cycle, le.Queued, le.Limit, sim.MaxQueuedLimit)
	case err != nil:
		return nil, failErr(exitUsage, "%s: %v", name, err)
	}
	return m, nil
}

// writeReplayText prints what was replayed, its summary and that it
// reproduced.
func writeReplayText(w io.Writer, name string, snap snapshot.Snapshot, m *sim.Model) {
	hw := bufio.NewWriter(w)
	cfg := &snap.Config
	changes := counted(len(snap.Changes), "change")
	mode := ""
	if cfg.Switch {
		mode = ", P/S switch"
	}
	if cfg.Trace != nil {
		mode += ", trace of " + counted(len(cfg.Trace), "row")
	}
	fmt.Fprintf(hw, "lbsim replay: %s: %s, %s, seed %d, policy %v%s, %s; recorded by %s\n",
		name, counted(cfg.Servers, "server"), counted(cfg.Cycles, "cycle"), cfg.Seed, cfg.Policy, mode, changes, quoteCut(snap.Engine))
	hw.Write(appendSummaryText(nil, cfg, true, m))
	fmt.Fprintf(hw, "Replay\n  reproduced exactly: %d state hashes, the final state and the summary match\n", len(snap.Hashes)+1)
	hw.Flush()
}

// shareCommand is lbsim share: its option (--base), flags and run
// (shareRun).
var shareCommand = subcommand[string]{
	commandSpec: commandSpec{name: "share", help: shareHelp, positional: true, hint: "the flags and an example"},
	flags: func(_ *cli, base *string) (*flag.FlagSet, *string) {
		fs := flag.NewFlagSet("share", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.StringVar(base, "base", "", "print the whole link on the page at `URL` instead of the fragment")
		return fs, nil
	},
	run: (*cli).shareRun,
}

func (c *cli) share(args []string) int { return runCommand(c, shareCommand, args) }

// shareRun prints the share link of the one snapshot cl.args names: the
// fragment, or the whole link on the page at base.
func (c *cli) shareRun(base *string, cl commandLine) error {
	pos := cl.args
	if len(pos) != 1 {
		return failErr(exitUsage, "want one snapshot FILE, got %d\nRun 'lbsim share --help' for an example.", len(pos))
	}
	if strings.ContainsAny(*base, " \t\n") {
		return failErr(exitUsage, "--base %q: a URL has no spaces", *base)
	}
	data, err := snapshot.ReadFile(pos[0])
	if err != nil {
		return failErr(exitUsage, "%v", err)
	}
	if _, err := snapshot.DecodeComparison(data); err != nil { // a single run or a comparison
		return failErr(exitUsage, "%s: %v", pos[0], err)
	}
	if *base != "" {
		fmt.Fprintln(c.stdout, snapshot.Link(*base, data))
	} else {
		fmt.Fprintln(c.stdout, snapshot.Fragment(data))
	}
	return nil
}

// readLink reads a share link from r (--link -), at most snapshot.MaxLink
// bytes.
func readLink(r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, snapshot.MaxLink+1))
	if err != nil {
		return "", err
	}
	if len(b) > snapshot.MaxLink {
		return "", fmt.Errorf("the link on standard input is longer than %d bytes", snapshot.MaxLink)
	}
	return string(b), nil
}
