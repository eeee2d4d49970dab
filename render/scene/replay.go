package scene

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/lbsim/lbsim/lanes"
	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// replayState is the replay's side of a Session: the starting settings of
// the first lane and the recording being replayed.
type replayState struct {
	cfg     sim.Config           // the configuration the first lane started from
	replay  *snapshot.Comparison // the recording being replayed (one lane for a single run), or nil
	verdict string               // how the replay ended
	errText string               // the last load or link error, for the hook
}

// forkSpecs are the lanes of a run forked from the replay: the
// recording's settings, run for at least as many cycles as the page's
// own, with the changes made up to the cycle shown (withChanges) or none.
func (s *Session) forkSpecs(withChanges bool) []snapshot.LaneSpec {
	specs := make([]snapshot.LaneSpec, len(s.replay.Lanes))
	for i, l := range s.replay.Lanes {
		cfg := l.Config.Clone()
		cfg.Cycles = max(cfg.Cycles, s.opts.Config.Cycles)
		specs[i] = snapshot.LaneSpec{Label: l.Label, Config: cfg}
		if withChanges && i < len(s.set.Lanes) {
			specs[i].Changes = s.set.Lanes[i].Model.Changes()
		}
	}
	return specs
}

// fork leaves the replay: a new run of the recording's settings with the
// changes made up to the cycle shown, re-simulated to that cycle and
// recorded from the start, which the viewer then drives.
func (s *Session) fork() error {
	at := s.m.Cycle()
	specs := s.forkSpecs(true)
	if err := s.build(specs, at); err != nil {
		return fmt.Errorf("taking control of the replay: %w", err)
	}
	for i := range specs {
		specs[i].Changes = nil // the fork's changes are in its models
	}
	s.setStartSpecs(specs)
	s.replay, s.verdict = nil, ""
	s.say(fmt.Sprintf("you took control at cycle %s: a new run, recorded from here on", Commas(at)), false)
	return nil
}

// SeekCycle shows cycle t of the replay (or of the run so far), re-simulating
// from cycle 0 with the recorded changes; it pauses there.
func (s *Session) SeekCycle(t int64) {
	specs := s.runSpecs()
	if s.replay != nil {
		for i, l := range s.replay.Lanes {
			specs[i].Changes = l.Changes
		}
	} else {
		t = min(t, s.m.Cycle())
	}
	t = min(max(t, 0), s.cfg.Cycles)
	if err := s.build(specs, t); err != nil {
		s.say("seek: "+err.Error(), true)
		return
	}
	s.paused = true
	s.pauseAt = -1
	s.verdict = "" // said again if the replay reaches its end again
	s.checkPauseAt()
}

// Load starts replaying an encoded snapshot (.lbsnap bytes) of one run or
// of a comparison (shown in the compare view). A bad one is refused with a
// message; the run on screen goes on.
func (s *Session) Load(data []byte) error {
	c, err := snapshot.DecodeComparison(data)
	if err != nil {
		return s.loadFailed("snapshot", err)
	}
	return s.loadComparison(c)
}

// LoadLink starts replaying the snapshot of a share link (or its #r=
// fragment), a single run or a comparison.
func (s *Session) LoadLink(link string) error {
	data, err := snapshot.LinkData(link)
	if err == nil {
		var c snapshot.Comparison
		if c, err = snapshot.DecodeComparison(data); err == nil {
			return s.loadComparison(c)
		}
	}
	return s.loadFailed("share link", err)
}

func (s *Session) loadFailed(what string, err error) error {
	err = fmt.Errorf("cannot replay this %s: %w", what, err)
	s.errText = err.Error()
	s.say(err.Error()+" — the simulator goes on with the run it had", true)
	return err
}

func (s *Session) loadComparison(c snapshot.Comparison) error {
	specs := make([]snapshot.LaneSpec, len(c.Lanes))
	for i, l := range c.Lanes {
		if l.Model != snapshot.ModelVersion {
			return s.loadFailed("snapshot", fmt.Errorf("it was recorded by model version %d, this is version %d", l.Model, snapshot.ModelVersion))
		}
		specs[i] = snapshot.LaneSpec{Label: l.Label, Config: l.Config, Changes: l.Changes}
	}
	// Check it runs before leaving the current run.
	set, err := lanes.New(specs, s.modelOptions()...)
	if err == nil {
		for _, l := range set.Lanes {
			err = cmp.Or(err, l.Model.Err())
		}
	}
	if err != nil {
		return s.loadFailed("snapshot", err)
	}
	s.errText = ""
	s.startReplay(c)
	return nil
}

func (s *Session) startReplay(c snapshot.Comparison) {
	specs := make([]snapshot.LaneSpec, len(c.Lanes))
	for i, l := range c.Lanes {
		specs[i] = snapshot.LaneSpec{Label: l.Label, Config: l.Config, Changes: l.Changes}
	}
	if err := s.build(specs, 0); err != nil {
		s.loadFailed("snapshot", err)
		return
	}
	s.replay = &c
	if note := c.Lanes[0].Caption; note != "" { // a teacher's caption came with it
		s.note, s.caption = note, CaptionLines(note)
	}
	s.verdict = ""
	s.paused = false
	s.message = ""
	if s.tick == 0 && s.opts.PauseAt >= 0 {
		s.pauseAt = s.opts.PauseAt // a link opened with pause-at
	}
	s.checkPauseAt()
}

// endOfReplay checks the replay's end against the recording, every lane.
func (s *Session) endOfReplay() {
	if s.replay == nil {
		return
	}
	s.verdict = "replay ended: reproduced exactly (same final state hash)"
	for i, l := range s.replay.Lanes {
		m := s.set.Lanes[i].Model
		if m.Hash() != l.Final || !slices.Equal(m.Changes(), l.Changes) {
			s.verdict = "replay ended: it did NOT reproduce the recorded final state"
		}
	}
}

// Snapshot encodes the run shown so far: the whole run when it has ended,
// else the run cut at the current cycle (its changes so far), so loading it
// replays to exactly this state. The compare view's lanes make one
// comparison snapshot.
func (s *Session) Snapshot() ([]byte, error) {
	if s.m.Cycle() == 0 && !s.m.Done() {
		return nil, errors.New("nothing to save yet: the run is at cycle 0")
	}
	var (
		c   snapshot.Comparison
		err error
	)
	if s.m.Done() {
		c, err = s.set.Comparison()
	} else {
		specs := s.runSpecs()
		for i, l := range s.set.Lanes {
			specs[i].Config.Cycles = s.m.Cycle()
			specs[i].Changes = l.Model.Changes()
		}
		c, err = snapshot.RecordComparison(specs)
	}
	if err != nil {
		return nil, fmt.Errorf("save: %w", err)
	}
	return s.encode(c)
}

// encode writes c, with the session's caption (Options.Note), as a
// single-run snapshot when it holds one lane (the format every version
// reads), else as a comparison.
func (s *Session) encode(c snapshot.Comparison) ([]byte, error) {
	c.Lanes = slices.Clone(c.Lanes)
	c.Lanes[0].Caption = s.note // a teacher's caption travels with the run
	if len(c.Lanes) == 1 {
		return snapshot.Encode(c.Lanes[0].Snapshot)
	}
	return snapshot.EncodeComparison(c)
}

// SnapshotName is a file name for the snapshot of the run shown.
func (s *Session) SnapshotName() string {
	if s.Comparing() {
		return fmt.Sprintf("lbsim-compare-seed%d-cycle%d.lbsnap", s.cfg.Seed, s.m.Cycle())
	}
	return fmt.Sprintf("lbsim-seed%d-cycle%d.lbsnap", s.cfg.Seed, s.m.Cycle())
}
