package scene

import (
	"slices"
	"strconv"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestPanelsScheduleChanges opens the clients and the health panel with
// their buttons, moves each setting's slider (a click on its track, and
// the keyboard) and checks the change scheduled for the next cycle, as
// `--set` reads it; a step puts it in force. The panels offer every
// setting of the client side and detection.
func TestPanelsScheduleChanges(t *testing.T) {
	for _, tc := range []struct {
		button string
		id     string
		before string // the value shown with the default settings
		keys   []Key
		want   string // the change's value, as --set reads it
		shown  string // the slider's value as shown
		read   func(sim.Config) string
	}{
		{WClients, "timeout", "off", []Key{KeyRight, KeyRight, KeyRight, KeyRight}, "40", "40", func(c sim.Config) string { return strconv.FormatInt(c.Timeout, 10) }},
		{WClients, "retries", "off", []Key{KeyRight, KeyRight}, "2", "2", func(c sim.Config) string { return strconv.FormatInt(int64(c.Retries), 10) }},
		{WClients, "retry-budget", "none", []Key{KeyRight, KeyRight, KeyRight, KeyRight, KeyRight, KeyRight, KeyRight, KeyRight, KeyRight, KeyRight}, "0.1", "0.1", func(c sim.Config) string { return c.RetryBudget.String() }},
		{WClients, "backoff", "0", []Key{KeyRight}, "5", "5", func(c sim.Config) string { return strconv.FormatInt(c.Backoff, 10) }},
		{WClients, WJitter, "false", []Key{KeyRight}, "true", "true", func(c sim.Config) string {
			if c.Jitter {
				return "true"
			}
			return "false"
		}},
		{WHealth, "health-interval", "off", []Key{KeyRight, KeyRight}, "10", "10", func(c sim.Config) string { return strconv.FormatInt(c.HealthInterval, 10) }},
		{WHealth, "health-fall", "3", []Key{KeyLeft}, "2", "2", func(c sim.Config) string { return strconv.FormatInt(int64(c.HealthFall), 10) }},
		{WHealth, "health-rise", "2", []Key{KeyRight}, "3", "3", func(c sim.Config) string { return strconv.FormatInt(int64(c.HealthRise), 10) }},
		{WHealth, "eject-after", "off", []Key{KeyRight, KeyRight, KeyRight}, "3", "3", func(c sim.Config) string { return strconv.FormatInt(int64(c.EjectAfter), 10) }},
		{WHealth, "eject-for", "1000", []Key{KeyLeft}, "900", "900", func(c sim.Config) string { return strconv.FormatInt(c.EjectFor, 10) }},
		{WHealth, "provision-delay", "off", []Key{KeyRight}, "50", "50", func(c sim.Config) string { return strconv.FormatInt(c.ProvisionDelay, 10) }},
		{WHealth, "replace-after", "off", []Key{KeyEnd}, "20000", "20000", func(c sim.Config) string { return strconv.FormatInt(c.ReplaceAfter, 10) }},
	} {
		s := drawn(t, 20)
		s.Apply(TogglePause)
		b := control(t, s, tc.button).R
		s.HandleInput(Input{X: b.X + b.W/2, Y: b.Y + b.H/2, Pressed: true, Down: true})
		s.HandleInput(Input{Released: true})
		s.Draw(BaseW, BaseH)
		if got := control(t, s, tc.id).Value; got != tc.before {
			t.Errorf("%s: with the default settings shows %q, want %q", tc.id, got, tc.before)
		}
		keyChange(t, s, tc.id, tc.keys, tc.want, tc.shown)
		s.Apply(StepOne)
		if got := tc.read(s.m.Config()); got != tc.want {
			t.Errorf("%s: in force %s, want %s", tc.id, got, tc.want)
		}
		// Esc closes the panel.
		s.HandleInput(Input{Keys: []Key{KeyEscape}})
		if s.dialog != dialogNone {
			t.Errorf("%s: Esc left the panel open", tc.id)
		}
	}
	// Every setting of the client side and detection has its slider.
	var ids []string
	for _, w := range append(slices.Clone(clientWidgets), healthWidgets...) {
		ids = append(ids, w.id)
	}
	for _, name := range []string{"timeout", "retries", "backoff", "jitter", "retry-budget", "health-interval", "health-fall",
		"health-rise", "eject-after", "eject-for", "provision-delay", "replace-after"} {
		if !slices.Contains(sim.SettingNames(), name) {
			t.Errorf("%s is no setting", name)
		}
		if !slices.Contains(ids, name) {
			t.Errorf("no panel has a control of %s", name)
		}
	}
}

// TestPanelSliderDrag drags the clients panel's timeout slider with the
// pointer: the value under the pointer is scheduled.
func TestPanelSliderDrag(t *testing.T) {
	s := drawn(t, 20)
	s.Apply(OpenClients)
	s.Draw(BaseW, BaseH)
	r := control(t, s, "timeout").R
	tr := sliderTrack(r, 1)
	x := tr.X + tr.W*0.5
	s.HandleInput(Input{X: x, Y: tr.Y, Pressed: true, Down: true})
	s.HandleInput(Input{X: x, Y: tr.Y, Released: true})
	want, _ := sim.NewChange(s.m.Cycle()+1, "timeout", "2500")
	if p := s.m.Pending(); len(p) != 1 || p[0] != want {
		t.Errorf("dragged to the middle: pending %v, want %v", p, want)
	}
}

// TestPanelChangesReplay sets a timeout and retries in the clients panel
// and health checks and ejection in the health panel, fails a server,
// runs on, and replays the saved run and its share link: both reach the
// same state hash, retries and timeouts and all.
func TestPanelChangesReplay(t *testing.T) {
	s := drawn(t, 20)
	for _, set := range []struct {
		panel  Intent
		id     string
		keys   []Key
		change string
	}{
		{OpenClients, "timeout", []Key{KeyRight, KeyRight, KeyRight, KeyRight, KeyRight, KeyRight}, "timeout=60"},
		{OpenClients, "retries", []Key{KeyRight, KeyRight}, "retries=2"},
		{OpenHealth, "health-interval", []Key{KeyRight, KeyRight}, "health-interval=10"},
		{OpenHealth, "eject-after", []Key{KeyRight, KeyRight}, "eject-after=2"},
	} {
		s.Apply(set.panel)
		s.Draw(BaseW, BaseH)
		for ws := s.controls(); ws[s.focus].id != set.id; {
			s.HandleInput(Input{Keys: []Key{KeyTab}})
		}
		s.HandleInput(Input{Keys: append(set.keys, KeyEscape)})
		s.Apply(StepOne)
		if ch := s.State().Changes; ch[len(ch)-1].String() != strconv.FormatInt(s.m.Cycle(), 10)+":"+set.change {
			t.Fatalf("after %s: changes %v", set.id, ch)
		}
	}
	if err := s.Set("fail", "2"); err != nil {
		t.Fatal(err)
	}
	for range 400 {
		s.Apply(StepOne)
	}
	sum := s.m.Summary()
	if sum.Retries == 0 || sum.TimedOutQueued+sum.TimedOutInService == 0 || sum.Ejections == 0 {
		t.Fatalf("the run exercises no retries, timeouts or ejections: %+v", sum)
	}
	hash, cycle := s.m.Hash(), s.m.Cycle()
	data, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for how, s2 := range replayedBothWays(t, data, cycle) {
		if s2.m.Hash() != hash || s2.m.Summary().Retries != sum.Retries {
			t.Errorf("%s replay at %d: hash %x retries %d, want %x and %d", how, cycle, s2.m.Hash(), s2.m.Summary().Retries, hash, sum.Retries)
		}
	}
}
