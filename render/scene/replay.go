package scene

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// replayState is the replay's side of a Session: the recorder of the run
// shown and the snapshot being replayed.
type replayState struct {
	cfg     sim.Config         // the configuration the model started from
	rec     *snapshot.Recorder // records the run being shown
	replay  *snapshot.Snapshot // the snapshot being replayed, or nil
	verdict string             // how the replay ended
	errText string             // the last load or link error, for the hook
}

// forkConfig is the configuration of a run forked from the replay: the
// snapshot's, run for at least as many cycles as the page's own.
func (s *Session) forkConfig() sim.Config {
	cfg := s.replay.Config.Clone()
	cfg.Cycles = max(cfg.Cycles, s.opts.Config.Cycles)
	return cfg
}

// fork leaves the replay: a new run of the snapshot's settings with the
// changes made up to the cycle shown, re-simulated to that cycle and
// recorded from the start, which the viewer then drives.
func (s *Session) fork() error {
	at := s.m.Cycle()
	changes := s.m.Changes()
	cfg := s.forkConfig()
	if err := s.build(cfg, changes, at); err != nil {
		return fmt.Errorf("taking control of the replay: %w", err)
	}
	s.opts.Config, s.opts.Changes = cfg, nil // the fork's changes are in its model
	s.replay, s.verdict = nil, ""
	s.say(fmt.Sprintf("you took control at cycle %s: a new run, recorded from here on", Commas(at)), false)
	return nil
}

// SeekCycle shows cycle t of the replay (or of the run so far), re-simulating
// from cycle 0 with the recorded changes; it pauses there.
func (s *Session) SeekCycle(t int64) {
	cfg, changes := s.cfg, s.m.Changes()
	if s.replay != nil {
		changes = s.replay.Changes
	} else {
		changes = append(changes, s.m.Pending()...)
		t = min(t, s.m.Cycle())
	}
	t = min(max(t, 0), cfg.Cycles)
	if err := s.build(cfg, changes, t); err != nil {
		s.say("seek: "+err.Error(), true)
		return
	}
	s.paused = true
	s.pauseAt = -1
	s.checkPauseAt()
}

// Load starts replaying an encoded snapshot (.lbsnap bytes). A bad one is
// refused with a message; the run on screen goes on.
func (s *Session) Load(data []byte) error {
	snap, err := snapshot.Decode(data)
	if err != nil {
		return s.loadFailed("snapshot", err)
	}
	return s.loadSnapshot(snap)
}

// LoadLink starts replaying the snapshot of a share link (or its #r=
// fragment).
func (s *Session) LoadLink(link string) error {
	snap, err := snapshot.ParseLink(link)
	if err != nil {
		return s.loadFailed("share link", err)
	}
	return s.loadSnapshot(snap)
}

func (s *Session) loadFailed(what string, err error) error {
	err = fmt.Errorf("cannot replay this %s: %w", what, err)
	s.errText = err.Error()
	s.say(err.Error()+" — the simulator goes on with the run it had", true)
	return err
}

func (s *Session) loadSnapshot(snap snapshot.Snapshot) error {
	if snap.Model != snapshot.ModelVersion {
		return s.loadFailed("snapshot", fmt.Errorf("it was recorded by model version %d, this is version %d", snap.Model, snapshot.ModelVersion))
	}
	// Check it runs before leaving the current run.
	m, err := sim.New(snap.Config, s.modelOptions()...)
	if err == nil {
		err = cmp.Or(m.Err(), m.Schedule(snap.Changes...))
	}
	if err != nil {
		return s.loadFailed("snapshot", err)
	}
	s.errText = ""
	s.startReplay(snap)
	return nil
}

func (s *Session) startReplay(snap snapshot.Snapshot) {
	if err := s.build(snap.Config, snap.Changes, 0); err != nil {
		s.loadFailed("snapshot", err)
		return
	}
	s.replay = &snap
	s.verdict = ""
	s.paused = false
	s.message = ""
	if s.tick == 0 && s.opts.PauseAt >= 0 {
		s.pauseAt = s.opts.PauseAt // a link opened with pause-at
	}
	s.checkPauseAt()
}

// endOfReplay checks the replay's end against the recording.
func (s *Session) endOfReplay() {
	if s.replay == nil {
		return
	}
	switch {
	case s.m.Hash() != s.replay.Final || !slices.Equal(s.m.Changes(), s.replay.Changes):
		s.verdict = "replay ended: it did NOT reproduce the recorded final state"
	default:
		s.verdict = "replay ended: reproduced exactly (same final state hash)"
	}
}

// Snapshot encodes the run shown so far: the whole run when it has ended,
// else the run cut at the current cycle (its changes so far), so loading it
// replays to exactly this state.
func (s *Session) Snapshot() ([]byte, error) {
	var (
		snap snapshot.Snapshot
		err  error
	)
	switch {
	case s.m.Done():
		snap, err = s.rec.Snapshot(s.m)
	case s.m.Cycle() == 0:
		return nil, errors.New("nothing to save yet: the run is at cycle 0")
	default:
		cfg := s.cfg.Clone()
		cfg.Cycles = s.m.Cycle()
		snap, err = snapshot.Record(cfg, s.m.Changes())
	}
	if err != nil {
		return nil, fmt.Errorf("save: %w", err)
	}
	return snapshot.Encode(snap)
}

// SnapshotName is a file name for the snapshot of the run shown.
func (s *Session) SnapshotName() string {
	return fmt.Sprintf("lbsim-seed%d-cycle%d.lbsnap", s.cfg.Seed, s.m.Cycle())
}
