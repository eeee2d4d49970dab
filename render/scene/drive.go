package scene

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// shortcuts maps keys to intents when no control has the focus (and the
// focused control does not take the key); the help overlay lists them.
// Digits start typing a seed, Tab moves the focus, Esc hides help and
// messages.
var shortcuts = map[Key]Intent{
	KeySpace:     TogglePause,
	KeyRight:     StepOne,
	KeyPlus:      Faster,
	KeyUp:        Faster,
	KeyMinus:     Slower,
	KeyDown:      Slower,
	RuneKey('r'): Restart,
	RuneKey('h'): ToggleHelp,
	RuneKey('d'): Dice,
	RuneKey('s'): Save,
	RuneKey('l'): Load,
	RuneKey('k'): Share,
	RuneKey('t'): ToggleTheory,
	RuneKey('p'): TogglePresent,
	RuneKey('f'): Fullscreen,
}

// measured holds the time averages the theory panel sets beside Erlang C.
type measured struct {
	cycles             int64
	queue, busy, live  int64
	dispatched, waited int64 // dispatches, and those that had waited ≥ 1 cycle
}

// observe records the cycle just completed: the snapshot recorder and the
// time averages.
func (s *Session) observe() {
	s.rec.Observe(s.m)
	p := s.m.Pool()
	s.meas.cycles++
	s.meas.queue += int64(s.m.QueueLen())
	s.meas.busy += int64(p.Busy)
	s.meas.live += int64(p.Live)
	for _, e := range s.m.Events() {
		if e.Kind == sim.Dispatch {
			s.meas.dispatched++
			if e.Wait > 0 {
				s.meas.waited++
			}
		}
	}
}

// controls returns the controls on screen, in Tab order.
func (s *Session) controls() []widget {
	if s.replay == nil {
		return widgets
	}
	w := scrubWidget
	w.min, w.max, w.step = 0, s.replay.Config.Cycles, max(s.replay.Config.Cycles/100, 1)
	return append(slices.Clip(widgets), w)
}

// setting returns the value of a slider or the policy as it will be at the
// next cycle: the last pending change, or the setting in effect.
func (s *Session) setting(id string) int64 {
	switch id {
	case WSpeed:
		return int64(max(slices.Index(ladder[:], s.speed), 0))
	case WScrub:
		return s.m.Cycle()
	}
	cfg := s.m.Config()
	var v int64
	switch id {
	case WRate:
		v = int64(cfg.Rate)
	case WScaleUp:
		v = int64(cfg.ScaleUp)
	case WScaleDown:
		v = int64(cfg.ScaleDown)
	case WCooldown:
		v = cfg.Cooldown
	case WTaskMin:
		v = int64(cfg.TaskMin)
	case WTaskMax:
		v = int64(cfg.TaskMax)
	case WPolicy:
		v = int64(cfg.Policy)
	}
	for _, c := range s.m.Pending() {
		if c.Setting.String() == id {
			v = c.Value
		}
	}
	return v
}

// formatValue writes v of the control id for the screen and for
// sim.NewChange.
func formatValue(id string, v int64) string {
	switch id {
	case WRate:
		return sim.Rate(v).String()
	case WScaleUp, WScaleDown:
		return sim.Factor(v).String()
	case WPolicy:
		return sim.Policy(v).String()
	case WSpeed:
		return SpeedName(ladder[min(max(v, 0), int64(len(ladder)-1))])
	case WScrub:
		return Commas(v)
	}
	return strconv.FormatInt(v, 10)
}

// valueText is what a control shows as its value.
func (s *Session) valueText(w widget) string {
	switch w.kind {
	case kSlider:
		v := s.setting(w.id)
		if s.dragging >= 0 && s.controls()[s.dragging].id == w.id {
			v = s.dragVal
		}
		return formatValue(w.id, v)
	case kChoice:
		return formatValue(w.id, s.setting(w.id))
	case kField:
		if s.seedEdit.editing {
			return s.seedEdit.text
		}
		return strconv.FormatUint(s.cfg.Seed, 10)
	}
	switch w.id {
	case WPlay:
		if s.paused {
			return "► play"
		}
		return "|| pause"
	case WTheory:
		if s.theory {
			return "theory: on"
		}
	case WPresent:
		if s.present {
			return "present: on"
		}
	}
	return w.label
}

// setControl gives a slider or the policy a new value: the speed at once,
// the scrub bar by seeking, a setting by scheduling a change for the next
// cycle (forking a replay first).
func (s *Session) setControl(w widget, v int64) {
	switch w.id {
	case WSpeed:
		s.setSpeed(ladder[min(max(v, 0), int64(len(ladder)-1))])
		return
	case WScrub:
		s.SeekCycle(v)
		return
	}
	if v == s.setting(w.id) {
		return
	}
	if err := s.Set(w.id, formatValue(w.id, v)); err != nil {
		s.say(err.Error(), true)
	}
}

// Set schedules the setting name (a `lbsim run --set` name) to value at
// the next cycle, as a slider does. During a replay it first forks a new
// run from the cycle shown.
func (s *Session) Set(name, value string) error {
	c, err := sim.NewChange(s.m.Cycle()+1, name, value)
	if err != nil {
		return err
	}
	if s.replay != nil {
		if err := s.fork(); err != nil { // the fork stays at the cycle shown
			return err
		}
	}
	if s.m.Done() {
		return errors.New("the run has ended: R restarts it")
	}
	if err := s.m.Schedule(c); err != nil {
		return fmt.Errorf("%s = %s: %w", name, value, err)
	}
	return nil
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

// Say shows a message in the banner (an error in red).
func (s *Session) Say(msg string, isError bool) { s.say(msg, isError) }

func (s *Session) say(msg string, isError bool) {
	s.message, s.isError = msg, isError
}

// HandleInput carries out one tick of pointer and keyboard input: the
// controls first (pointer over a control, or the focused control for a
// key), then clicks on servers, then the shortcuts.
func (s *Session) HandleInput(in Input) {
	ws := s.controls()
	if s.focus >= len(ws) {
		s.focus = -1
	}
	var rs []Rect
	var l Layout
	if s.lastW > 0 {
		l = NewLayout(s.lastW, s.lastH, len(s.m.Balancers()))
		rs = s.controlRects(l)
	}
	if in.Pressed && rs != nil {
		s.press(ws, rs, l, in)
	}
	if s.dragging >= 0 && s.dragging < len(ws) && rs != nil {
		w := ws[s.dragging]
		if in.Down || in.Released {
			s.dragVal = sliderValueAt(w, sliderTrack(rs[s.dragging], l.Unit), in.X)
		}
		if in.Released || !in.Down {
			s.dragging = -1
			s.setControl(w, s.dragVal)
		}
	}
	for _, k := range in.Keys {
		s.key(ws, k, in.Shift)
	}
}

func (s *Session) press(ws []widget, rs []Rect, l Layout, in Input) {
	p := Point{in.X, in.Y}
	for i, r := range rs {
		if !inside(r, p) {
			continue
		}
		w := ws[i]
		s.banner = false
		if s.focus != i && s.seedEdit.editing {
			s.seedEdit.editing = false
		}
		s.focus = i
		switch w.kind {
		case kSlider:
			s.dragging = i
			s.dragVal = sliderValueAt(w, sliderTrack(r, l.Unit), in.X)
		case kChoice:
			s.setControl(w, nextPolicy(s.setting(w.id), 1, s.m.Config().Queues))
		case kField:
			s.seedEdit = seedField{text: "", editing: true}
		case kButton:
			s.activate(w)
		}
		return
	}
	s.focus = -1
	s.seedEdit.editing = false
	s.clickServer(l, p)
}

func inside(r Rect, p Point) bool {
	return p.X >= r.X && p.X < r.X+r.W && p.Y >= r.Y && p.Y < r.Y+r.H
}

// activate carries out a button.
func (s *Session) activate(w widget) {
	switch w.id {
	case WDice:
		s.Apply(Dice)
	case WPlay:
		s.Apply(TogglePause)
	case WStep:
		s.Apply(StepOne)
	case WRestart:
		s.Apply(Restart)
	case WSave:
		s.Apply(Save)
	case WLoad:
		s.Apply(Load)
	case WShare:
		s.Apply(Share)
	case WTheory:
		s.Apply(ToggleTheory)
	case WPresent:
		s.Apply(TogglePresent)
	case WHelp:
		s.Apply(ToggleHelp)
	}
}

// key carries out one key: Tab moves the focus, the focused control takes
// what it understands, the rest are shortcuts.
func (s *Session) key(ws []widget, k Key, shift bool) {
	s.banner = false
	if k == KeyTab {
		s.seedEdit.editing = false
		s.focus = nextFocus(s.focus, len(ws), shift)
		return
	}
	if s.focus >= 0 {
		w := ws[s.focus]
		switch w.kind {
		case kSlider:
			if v, ok := sliderKey(w, s.setting(w.id), k); ok {
				s.setControl(w, v)
				return
			}
		case kChoice:
			switch k {
			case KeyRight, KeyUp, KeyEnter, KeySpace:
				s.setControl(w, nextPolicy(s.setting(w.id), 1, s.m.Config().Queues))
				return
			case KeyLeft, KeyDown:
				s.setControl(w, nextPolicy(s.setting(w.id), -1, s.m.Config().Queues))
				return
			}
		case kField:
			seed, done, ok := s.seedEdit.key(k)
			if done {
				s.focus = -1
				s.restartWithSeed(seed)
			}
			if ok {
				if k == KeyEscape {
					s.focus = -1
				}
				return
			}
		case kButton:
			if k == KeyEnter || k == KeySpace {
				s.activate(w)
				return
			}
		}
		if k == KeyEscape {
			s.focus = -1
			return
		}
	}
	if r := k.Rune(); r >= '0' && r <= '9' {
		// Typing digits edits the seed.
		s.focus = slices.IndexFunc(ws, func(w widget) bool { return w.id == WSeed })
		s.seedEdit = seedField{}
		s.seedEdit.key(k)
		return
	}
	if k == KeyEscape {
		s.help = false
		s.message = ""
		return
	}
	if in, ok := shortcuts[k]; ok {
		s.Apply(in)
	}
}

// clickServer takes the clicked server down, or a down one up again, at
// the next cycle.
func (s *Session) clickServer(l Layout, p Point) {
	for bi, b := range s.m.Balancers() {
		if bi >= len(l.Lanes) {
			break
		}
		pl := b.Pool()
		g := NewGrid(l.Lanes[bi].Pool, pl.Live+pl.Down, l.Unit)
		i := 0
		for v := range b.Servers() {
			if inside(g.BoxAt(i), p) {
				name := "down"
				if v.State == sim.Failed {
					name = "up"
				}
				ref := sim.MakeServerRef(bi, v.ID)
				if err := s.Set(name, ref.String()); err != nil {
					s.say(err.Error(), true)
				}
				return
			}
			i++
		}
	}
}

// nextPolicy returns the policy step places after cur (−1: before it),
// wrapping, among those the queue mode q runs.
func nextPolicy(cur int64, step int, q sim.QueueMode) int64 {
	ps := sim.PoliciesFor(q)
	i := 0
	for j, p := range ps {
		if int64(p) == cur {
			i = j
		}
	}
	return int64(ps[(i+step+len(ps))%len(ps)])
}
