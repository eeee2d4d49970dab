package preset

import (
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/render/lesson"
	"github.com/lbsim/lbsim/render/scene"
	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

func seven() uint64 { return 7 }

func TestReadLikeTheCLI(t *testing.T) {
	p := Read([]Param{{"seed", "42"}, {"servers", "10"}, {"rate", "0.6"}, {"speed", "max"}, {"pause-at", "500"}}, seven)
	want := sim.DefaultConfig()
	want.Seed, want.Servers, want.MaxServers = 42, 10, sim.DefaultMaxServers(10)
	want.Set("rate", "0.6")
	if len(p.Problems) != 0 || !p.SeedGiven || p.Speed != scene.MaxSpeed || p.PauseAt != 500 {
		t.Fatalf("%+v", p)
	}
	if p.Config.Seed != want.Seed || p.Config.Servers != want.Servers || p.Config.MaxServers != want.MaxServers || p.Config.Rate != want.Rate {
		t.Errorf("config %+v", p.Config)
	}
}

func TestMissingSeedIsRandom(t *testing.T) {
	p := Read(nil, seven)
	if p.SeedGiven || p.Config.Seed != 7 || p.Speed != DefaultSpeed || p.PauseAt != -1 {
		t.Errorf("%+v", p)
	}
	if p.Config.MaxServers != sim.DefaultMaxServers(20) {
		t.Errorf("max-servers %d", p.Config.MaxServers)
	}
	for range 100 {
		if s := RandomSeed(); s < 1 || s > 999_999_999 {
			t.Fatalf("RandomSeed() = %d", s)
		}
	}
}

func TestBadParametersAreReportedAndIgnored(t *testing.T) {
	for _, tc := range []struct {
		params []Param
		want   []string // in the message
	}{
		{[]Param{{"servers", "abc"}}, []string{"servers", "whole number"}},
		{[]Param{{"speed", "fast"}}, []string{"speed", "max"}},
		{[]Param{{"pause-at", "-3"}}, []string{"pause-at"}},
		{[]Param{{"colour", "red"}}, []string{"unknown parameter", "colour", "servers"}},
		{[]Param{{"policy", "best"}}, []string{"policy", "first-idle"}},
		{[]Param{{"servers", "0"}}, []string{"servers", "default settings"}},
	} {
		p := Read(append(tc.params, Param{"seed", "9"}), seven)
		if len(p.Problems) != 1 {
			t.Errorf("%v: problems %q", tc.params, p.Problems)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(p.Problems[0], w) {
				t.Errorf("%v: %q does not mention %q", tc.params, p.Problems[0], w)
			}
		}
		if err := p.Config.Validate(); err != nil || p.Config.Seed != 9 {
			t.Errorf("%v: runs with %v, seed %d", tc.params, err, p.Config.Seed)
		}
	}
}

func TestReadChangesAndRepeatedBlocks(t *testing.T) {
	p := Read([]Param{
		{Name: "block", Value: "10.0.0.0/8"}, {Name: "block", Value: "192.0.2.1"},
		{Name: "set", Value: "500:rate=0.9"}, {Name: "fault", Value: "down:2@40"}, {Name: "fault", Value: "sideways"},
		{Name: "seed", Value: "3"},
	}, func() uint64 { return 1 })
	if len(p.Config.Blocked) != 2 {
		t.Errorf("blocked %v, want both ranges", p.Config.Blocked)
	}
	if len(p.Changes) != 2 || p.Changes[0].String() != "500:rate=0.9" || p.Changes[1].String() != "40:down=2" {
		t.Errorf("changes %v", p.Changes)
	}
	if len(p.Problems) != 1 || !strings.Contains(p.Problems[0], "fault") {
		t.Errorf("problems %q, want one about the bad fault", p.Problems)
	}
}

func TestReadRefusesChangesThatDoNotFit(t *testing.T) {
	p := Read([]Param{{Name: "cycles", Value: "100"}, {Name: "set", Value: "500:rate=0.9"}}, func() uint64 { return 1 })
	if len(p.Changes) != 0 || len(p.Problems) != 1 || !strings.Contains(p.Problems[0], "set") {
		t.Errorf("a change after the last cycle: changes %v, problems %q", p.Changes, p.Problems)
	}
}

func TestViewSwitchesAndLessons(t *testing.T) {
	p := Read([]Param{{"present", "1"}, {"theory", "true"}, {"seed", "4"}}, seven)
	if !p.Present || !p.Theory || len(p.Problems) != 0 {
		t.Errorf("present=1&theory=true: %+v", p)
	}
	p = Read([]Param{{"present", "maybe"}}, seven)
	if p.Present || len(p.Problems) != 1 || !strings.Contains(p.Problems[0], "present") {
		t.Errorf("present=maybe: problems %q", p.Problems)
	}
	// A lesson's settings apply first, the page's own after them.
	p = Read([]Param{{"lesson", "firewall"}, {"seed", "9"}}, seven)
	if p.Lesson != "firewall" || len(p.Caption) == 0 || p.Config.Seed != 9 || len(p.Config.Blocked) != 1 || len(p.Problems) != 0 {
		t.Errorf("lesson=firewall&seed=9: lesson %q seed %d blocked %v problems %q", p.Lesson, p.Config.Seed, p.Config.Blocked, p.Problems)
	}
	p = Read([]Param{{"lesson", "nope"}}, seven)
	if p.Lesson != "" || len(p.Problems) != 1 || !strings.Contains(p.Problems[0], "scaling-band") {
		t.Errorf("lesson=nope: problems %q", p.Problems)
	}
	for _, name := range []string{"scaling-band", "firewall", "server-fails", "erlang", "overload"} {
		if p := Read([]Param{{"lesson", name}}, seven); len(p.Problems) != 0 || p.Lesson != name {
			t.Errorf("lesson %s: problems %q", name, p.Problems)
		}
	}
}

// FuzzRead feeds any parameters: Read never panics, and the configuration
// it returns is valid.
func FuzzRead(f *testing.F) {
	f.Add("lesson", "firewall", "present", "1")
	f.Add("speed", "max", "theory", "0")
	f.Add("set", "5:rate=2", "block", "10.0.0.0/8")
	f.Add("compare", "a:policy=p2c,choices=3;b:queues=per-server,speeds=2,1", "queues", "per-server")
	f.Add("comparison", "swrr-weights", "seed", "3")
	f.Add("caption", "Watch server 2", "lesson", "speeds")
	f.Add("lesson", "hockey-stick", "try", "1")
	f.Add("quiz", "0", "lesson", "queues")
	f.Add("caption", "a\nb\x1b[2J", "caption", "\u202e")
	// The keys of fan-out, overload control, target tracking and cost.
	f.Add("fanout", "4", "queues", "per-server")
	f.Add("fanout", "3", "throttle", "2")
	f.Add("discipline", "adaptive-lifo", "codel-target", "200")
	f.Add("codel-interval", "40", "codel-target", "10")
	f.Add("throttle", "10.001", "server-cost", "0.0000001")
	f.Add("concurrency-limit", "aimd", "limit-min", "50")
	f.Add("concurrency-limit", "fixed:5", "limit-initial", "3")
	f.Add("autoscaler", "target", "scale-target", "2")
	f.Add("autoscaler", "target", "cooldown", "5")
	f.Add("scale-metric", "queue", "autoscaler", "target")
	f.Add("set", "30:scale-target=0.5", "autoscaler", "target")
	f.Add("set", "30:codel-target=5", "discipline", "lifo")
	f.Add("compare", "a:discipline=fifo;b:discipline=adaptive-lifo,codel-target=20;c:concurrency-limit=aimd", "throttle", "2")
	f.Add("compare", "a:autoscaler=queue;b:autoscaler=target,scale-target=0.7", "server-cost", "0.01")
	f.Fuzz(func(t *testing.T, n1, v1, n2, v2 string) {
		p := Read([]Param{{n1, v1}, {n2, v2}}, seven)
		if p.Note != "" {
			if err := snapshot.CheckCaption(p.Note); err != nil {
				t.Errorf("%s=%q&%s=%q: caption %q accepted: %v", n1, v1, n2, v2, p.Note, err)
			}
			if strings.Join(p.Caption, " ") != strings.Join(strings.Fields(p.Note), " ") {
				t.Errorf("%s=%q&%s=%q: caption lines %q do not say %q", n1, v1, n2, v2, p.Caption, p.Note)
			}
		}
		if err := p.Config.Validate(); err != nil {
			t.Errorf("%s=%q&%s=%q: invalid config: %v", n1, v1, n2, v2, err)
		}
		if p.Lanes != nil && (len(p.Lanes) < 2 || len(p.Lanes) > 4) {
			t.Errorf("%s=%q&%s=%q: %d lanes", n1, v1, n2, v2, len(p.Lanes))
		}
		for _, l := range p.Lanes {
			if err := l.Config.Validate(); err != nil {
				t.Errorf("%s=%q&%s=%q: lane %q: invalid config: %v", n1, v1, n2, v2, l.Label, err)
			}
		}
	})
}

// TestIgnoredAndLongParameters: a parameter the others make do nothing is
// reported, as the command line refuses it, and a huge value comes back
// cut in the message.
func TestIgnoredAndLongParameters(t *testing.T) {
	for _, c := range []struct {
		params []Param
		want   string
	}{
		{[]Param{{"mean-service", "5"}}, "mean-service"},
		{[]Param{{"weights", "1,2"}}, "weights"},
		{[]Param{{"rate", strings.Repeat("9", 1<<20)}}, "(1048576 bytes)"},
	} {
		p := Read(c.params, func() uint64 { return 1 })
		if len(p.Problems) != 1 || !strings.Contains(p.Problems[0], c.want) || len(p.Problems[0]) > 400 {
			t.Errorf("%v: problems %.400q", c.params[0].Name, p.Problems)
		}
	}
}

// TestCompare: compare= gives one lane per variant, each the base run
// plus its settings with the defaults that follow from them (as `lbsim
// compare` runs it); a bad one is reported and the page shows one run;
// the ready-made comparisons all read.
func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		query   string
		labels  []string
		policy  []sim.Policy
		problem string
	}{
		{"compare=policy=round-robin;p2c:policy=p2c&queues=per-server&speeds=2,1,1&seed=3",
			[]string{"policy=round-robin", "p2c"}, []sim.Policy{sim.RoundRobin, sim.P2C}, ""},
		// A pooled base and a per-server variant without a policy: the
		// variant routes round-robin, as `lbsim run --queues per-server`.
		{"compare=pooled:queues=pooled;split:queues=per-server&seed=3",
			[]string{"pooled", "split"}, []sim.Policy{sim.FirstIdle, sim.RoundRobin}, ""},
		{"compare=policy=p2c&seed=3", nil, nil, "want 2 to 4 lanes"},
		{"compare=a:policy=p2c;b:seed=4&seed=3", nil, nil, "not a setting a variant can change"},
		{"compare=a:policy=hash;b:policy=p2c&seed=3", nil, nil, "policy"}, // hash needs per-server queues
	} {
		var ps []Param
		for _, kv := range strings.Split(tc.query, "&") {
			k, v, _ := strings.Cut(kv, "=")
			ps = append(ps, Param{k, v})
		}
		p := Read(ps, seven)
		if tc.problem != "" {
			if len(p.Problems) != 1 || !strings.Contains(p.Problems[0], tc.problem) || p.Lanes != nil {
				t.Errorf("%s: problems %q, %d lanes; want one problem saying %q and one run", tc.query, p.Problems, len(p.Lanes), tc.problem)
			}
			continue
		}
		if len(p.Problems) != 0 || len(p.Lanes) != len(tc.labels) {
			t.Fatalf("%s: problems %q, %d lanes", tc.query, p.Problems, len(p.Lanes))
		}
		for i, l := range p.Lanes {
			if l.Label != tc.labels[i] || l.Config.Policy != tc.policy[i] || l.Config.Seed != 3 {
				t.Errorf("%s: lane %d %q policy %s seed %d; want %q %s seed 3", tc.query, i, l.Label, l.Config.Policy, l.Config.Seed, tc.labels[i], tc.policy[i])
			}
		}
		if p.Config.Policy != p.Lanes[0].Config.Policy {
			t.Errorf("%s: Config is not the first lane's", tc.query)
		}
	}
	if p := Read([]Param{{"comparison", "nope"}}, seven); len(p.Problems) != 1 || !strings.Contains(p.Problems[0], "pooled-vs-split") {
		t.Errorf("comparison=nope: %q", p.Problems)
	}
	for _, c := range lesson.Comparisons {
		var ps []Param
		for _, kv := range c.Params() {
			ps = append(ps, Param{kv[0], kv[1]})
		}
		p := Read(ps, seven)
		if len(p.Problems) != 0 || len(p.Lanes) < 2 {
			t.Errorf("comparison %s: problems %q, %d lanes", c.Name, p.Problems, len(p.Lanes))
		}
		// Its claim holds on the lanes run to the end.
		var sums []sim.Summary
		for _, l := range p.Lanes {
			m, err := sim.New(l.Config)
			if err != nil {
				t.Fatal(err)
			}
			m.Run()
			sums = append(sums, m.Summary())
		}
		if err := c.Check(sums); err != nil {
			t.Errorf("comparison %s: %v", c.Name, err)
		} else {
			t.Logf("comparison %s: p95 waits %v", c.Name, func() (w []int64) {
				for _, x := range sums {
					w = append(w, x.WaitP95)
				}
				return
			}())
		}
		// comparison=NAME opens the same.
		q := Read([]Param{{"comparison", c.Name}}, seven)
		if len(q.Caption) == 0 || !slices.Equal(q.Caption, c.Caption) {
			t.Errorf("comparison=%s: caption %q, want its own", c.Name, q.Caption)
		}
		if len(q.Problems) != 0 || len(q.Lanes) != len(p.Lanes) || q.Lanes[1].Config.Policy != p.Lanes[1].Config.Policy {
			t.Errorf("comparison=%s: problems %q, %d lanes", c.Name, q.Problems, len(q.Lanes))
		}
	}
}

// TestCaption: caption=TEXT is a teacher's caption, shown in lines like a
// lesson's (replacing a lesson's); text that is too long, holds a control
// character or is not UTF-8 is reported by name with what is allowed, and
// ignored.
func TestCaption(t *testing.T) {
	long := strings.Repeat("word ", 56) // 280 characters
	for _, tc := range []struct {
		name   string
		params []Param
		note   string
		lines  int
		bad    string
	}{
		{"plain", []Param{{"caption", "Watch server 3: slow, ×0.5."}}, "Watch server 3: slow, ×0.5.", 1, ""},
		{"the longest", []Param{{"caption", long}}, strings.TrimSpace(long), 3, ""},
		{"over a lesson's", []Param{{"lesson", "speeds"}, {"caption", "my words"}}, "my words", 1, ""},
		{"too long", []Param{{"caption", long + "x"}}, "", 0, "at most 280"},
		{"a new line", []Param{{"caption", "one\ntwo"}}, "", 0, "not printable"},
		{"an escape", []Param{{"caption", "\x1b[2Jgone"}}, "", 0, "not printable"},
		{"a bidi override", []Param{{"caption", "abc\u202edef"}}, "", 0, "not printable"},
		{"not UTF-8", []Param{{"caption", "\xff\xfe"}}, "", 0, "UTF-8"},
		{"a megabyte", []Param{{"caption", strings.Repeat("a", 1<<20)}}, "", 0, "at most 280"},
	} {
		p := Read(tc.params, seven)
		if tc.bad != "" {
			if p.Note != "" || len(p.Problems) != 1 || !strings.Contains(p.Problems[0], "caption") || !strings.Contains(p.Problems[0], tc.bad) || len(p.Problems[0]) > 400 {
				t.Errorf("%s: note %q, problems %q: want one short problem naming caption and saying %q", tc.name, p.Note, p.Problems, tc.bad)
			}
			continue
		}
		if len(p.Problems) != 0 || p.Note != tc.note || len(p.Caption) != tc.lines {
			t.Errorf("%s: note %q, %d lines %q, problems %q; want %q in %d lines", tc.name, p.Note, len(p.Caption), p.Caption, p.Problems, tc.note, tc.lines)
		}
		for _, l := range p.Caption {
			if n := len([]rune(l)); n > scene.CaptionLineChars {
				t.Errorf("%s: caption line of %d characters", tc.name, n)
			}
		}
	}
}

// TestClientSideParameters: the client side's and detection's settings
// read from the address as `lbsim run` reads their flags, and a bad one is
// named with what it allows.
func TestClientSideParameters(t *testing.T) {
	p := Read([]Param{{"seed", "1"}, {"timeout", "100"}, {"retries", "3"}, {"backoff", "4"}, {"jitter", "true"}, {"retry-budget", "0.1"},
		{"health-interval", "10"}, {"health-fall", "2"}, {"health-rise", "4"}, {"eject-after", "5"}, {"eject-for", "500"},
		{"provision-delay", "30"}, {"replace-after", "2000"}, {"set", "100:timeout=50"}}, seven)
	if len(p.Problems) != 0 {
		t.Fatalf("problems %q", p.Problems)
	}
	c := p.Config
	want := sim.DefaultConfig()
	for _, kv := range [][2]string{{"timeout", "100"}, {"retries", "3"}, {"backoff", "4"}, {"jitter", "true"}, {"retry-budget", "0.1"},
		{"health-interval", "10"}, {"health-fall", "2"}, {"health-rise", "4"}, {"eject-after", "5"}, {"eject-for", "500"},
		{"provision-delay", "30"}, {"replace-after", "2000"}} {
		if err := want.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if c.Timeout != want.Timeout || c.Retries != want.Retries || c.Backoff != want.Backoff || !c.Jitter || c.RetryBudget != want.RetryBudget ||
		c.HealthInterval != 10 || c.HealthFall != 2 || c.HealthRise != 4 || c.EjectAfter != 5 || c.EjectFor != 500 ||
		c.ProvisionDelay != 30 || c.ReplaceAfter != 2000 || !c.ClientSide() {
		t.Errorf("config %+v", c)
	}
	if len(p.Changes) != 1 || p.Changes[0].String() != "100:timeout=50" {
		t.Errorf("changes %v", p.Changes)
	}
	bad := Read([]Param{{"seed", "1"}, {"retries", "1"}, {"retry-budget", "2"}}, seven)
	if len(bad.Problems) != 1 || !strings.Contains(bad.Problems[0], "retry-budget") {
		t.Errorf("retry-budget=2: problems %q", bad.Problems)
	}
}
