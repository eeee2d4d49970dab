package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// craft encodes a snapshot of cfg whose change log is changes, written as
// is, without the checks Encode makes: what a bit flip resealed with its
// checksum, or a hand-made file, can hold.
func craft(t testing.TB, cfg sim.Config, changes []sim.Change) []byte {
	t.Helper()
	return craftBody(t, cfg, func(b *body) { b.Changes = appendChanges(nil, changes) })
}

// craftBody seals the body of a snapshot of cfg (Record's, as Encode
// writes it) after edit has changed it, without the checks Encode makes.
func craftBody(t testing.TB, cfg sim.Config, edit func(*body)) []byte {
	t.Helper()
	s, err := Record(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.body()
	if err != nil {
		t.Fatal(err)
	}
	edit(&b)
	payload, err := b.MarshalMsg(nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := seal(FormatVersion, payload)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestHostileChangeValues: every value of a change log passes the checks
// its flag gets; before, a fault naming balancer −1 decoded and then
// panicked in the replay.
func TestHostileChangeValues(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Servers, cfg.InitialPerServer = 5, 80, 3, 2
	ref := func(bal, id int64) int64 { return bal<<32 | id }
	cases := []struct {
		name   string
		change sim.Change
		want   string
	}{
		{"fault on balancer -1", sim.Change{Cycle: 10, Setting: sim.SetDown, Value: ref(-1, 2)}, "names no server"},
		{"fault value -1", sim.Change{Cycle: 10, Setting: sim.SetDown, Value: -1}, "names no server"},
		{"fault on balancer 2", sim.Change{Cycle: 10, Setting: sim.SetUp, Value: ref(2, 2)}, "names no server"},
		{"S fault without a switch", sim.Change{Cycle: 10, Setting: sim.SetDown, Value: ref(1, 2)}, "names the switch's S balancer, and the run has no --switch"},
		{"fault on server 0", sim.Change{Cycle: 10, Setting: sim.SetDown, Value: 0}, "names no server"},
		{"fault on server 2^32-1", sim.Change{Cycle: 10, Setting: sim.SetDown, Value: 0xffff_ffff}, "names no server"},
		{"wave 2", sim.Change{Cycle: 10, Setting: sim.SetWave, Value: 2}, "wave"},
		{"policy -1", sim.Change{Cycle: 10, Setting: sim.SetPolicy, Value: -1}, "policy"},
		{"task-min -5", sim.Change{Cycle: 10, Setting: sim.SetTaskMin, Value: -5}, "task-min"},
		{"task-max 2^40", sim.Change{Cycle: 10, Setting: sim.SetTaskMax, Value: 1 << 40}, "task-max"},
		{"rate negative", sim.Change{Cycle: 10, Setting: sim.SetRate, Value: -1}, "rate"},
		{"cooldown 0", sim.Change{Cycle: 10, Setting: sim.SetCooldown, Value: 0}, "cooldown"},
		{"queue-cap -1", sim.Change{Cycle: 10, Setting: sim.SetQueueCap, Value: -1}, "queue-cap"},
		{"max-servers 0", sim.Change{Cycle: 10, Setting: sim.SetMaxServers, Value: 0}, "servers"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := craft(t, cfg, []sim.Change{c.change})
			_, err := Decode(data)
			if err == nil {
				t.Fatalf("Decode accepted the change %+v", c.change)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "change") {
				t.Errorf("Decode: %v; want an error about the change naming %q", err, c.want)
			}
			if _, err := ParseLink(Fragment(data)); err == nil {
				t.Errorf("ParseLink accepted the change %+v", c.change)
			}
			// The model refuses it too, however it is handed over.
			m, err := sim.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Schedule(c.change); err == nil {
				t.Errorf("Schedule accepted the change %+v", c.change)
			}
			s := Snapshot{Model: ModelVersion, Config: cfg, Changes: []sim.Change{c.change}, Every: 80}
			if _, err := Replay(s, nil); err == nil || errors.As(err, new(*DivergenceError)) {
				t.Errorf("Replay: %v; want the change refused", err)
			}
		})
	}
}

// FuzzReplay decodes and then replays (the payload behind a correct
// checksum): a snapshot that decodes must run
// (its first cycles, with a small bound on queued requests) without a
// panic, and replay to its end or stop with an error when it is short.
func FuzzReplay(f *testing.F) {
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Servers, cfg.InitialPerServer, cfg.Switch = 9, 120, 3, 2, true
	switchRun := craft(f, cfg, []sim.Change{{Cycle: 50, Setting: sim.SetDown, Value: 1<<32 | 2}, {Cycle: 60, Setting: sim.SetUp, Value: 1<<32 | 2}})
	// Before every value was checked, this one decoded and then panicked.
	minusOne := craft(f, cfg, []sim.Change{{Cycle: 50, Setting: sim.SetDown, Value: -1<<32 | 2}})
	addPayloads(f, append(seeds(f), switchRun, minusOne))
	// The payload is sealed with a correct checksum, so mutations reach
	// the field decoders and the model, as a crafted file would.
	f.Fuzz(func(t *testing.T, payload []byte) {
		s, ok := decodeSealed(t, payload)
		if !ok {
			return
		}
		c := s.Config
		if int64(c.Servers)*int64(c.InitialPerServer) > 20_000 || len(c.Trace) > 20_000 {
			return // a valid but slow start; the limits are tested elsewhere
		}
		const short = 200
		opts := []sim.Option{sim.WithMaxQueued(50_000)}
		if c.Cycles <= short && c.Servers <= 1000 {
			m, err := ReplayWith(s, nil, opts...)
			if err == nil && !m.Done() {
				t.Fatal("Replay returned no error before the last cycle")
			}
			return
		}
		// A long run: its first cycles, with the changes that fall in them.
		c.Cycles = min(c.Cycles, short)
		m, err := sim.New(c, opts...)
		if err != nil {
			t.Fatalf("a decoded configuration is refused: %v", err)
		}
		var early []sim.Change
		for _, ch := range s.Changes {
			if ch.Cycle <= c.Cycles {
				early = append(early, ch)
			}
		}
		if err := m.Schedule(early...); err != nil {
			t.Fatalf("a decoded change log is refused: %v", err)
		}
		for m.Step() {
		}
	})
}

// TestCheckBeforeRun: what Encode would refuse at the end of a run, Check
// refuses before it.
func TestCheckBeforeRun(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Blocked = 1, nil
	far := cfg
	far.Trace = []sim.TraceRow{{Cycle: 0, Time: 1}, {Cycle: 1<<63 - 1, Time: 1}}
	many := cfg
	many.Trace = make([]sim.TraceRow, MaxTraceRows+1)
	for i := range many.Trace {
		many.Trace[i].Time = 1
	}
	for name, c := range map[string]sim.Config{"row at cycle 2^63-1": far, "too many rows": many} {
		if err := Check(c, nil); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := Check(cfg, nil); err != nil {
		t.Errorf("the default configuration: %v", err)
	}
}

// TestHostileServiceValues: a snapshot's empirical values are checked like
// a --service-file's: bad varints, too many values and out-of-range times
// are refused with an error that names them.
func TestHostileServiceValues(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Service, cfg.ServiceValues = sim.Empirical, []int32{4}
	tooMany := make([]byte, 0, sim.MaxServiceValues+1)
	for range sim.MaxServiceValues + 1 {
		tooMany = append(tooMany, 5)
	}
	for _, tt := range []struct {
		name   string
		values []byte
		want   string
	}{
		{"a zero time", []byte{0}, "service-file"},
		{"above 10⁶", binary.AppendUvarint(nil, sim.MaxTaskTime+1), "service-file"},
		{"a cut varint", []byte{0x80}, "bad entry 1"},
		{"too many", tooMany, "more than"},
		{"none with empirical", nil, "service-file"},
	} {
		w := fromConfig(&cfg)
		w.vals[wireKeys["sva"]].b = tt.values
		if _, err := w.sim(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one with %q", tt.name, err, tt.want)
		}
	}
}

// TestFailTimeWithoutAFailFault: a snapshot whose configuration sets
// fail-time with no fail fault in its changes is refused, in the words
// the command line refuses --fail-time with (the setting does nothing
// without a failing server); with a fail fault it replays. Its file,
// testdata/fail-time-no-fault.lbsnap (go test -update), is the one lbsim
// replay is tested with.
func TestFailTimeWithoutAFailFault(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Servers, cfg.InitialPerServer = 5, 80, 3, 2
	data := craftBody(t, cfg, func(b *body) { b.Config.set("fail-time", 20) })
	path := filepath.Join("testdata", "fail-time-no-fault.lbsnap")
	if *update {
		writeFile(t, path, data)
	}
	if file, err := os.ReadFile(path); err != nil || !bytes.Equal(file, data) {
		t.Errorf("%s is not the snapshot this test crafts (%v): go test -update", path, err)
	}
	want := "fail-time: applies only to a failing server: give a fail fault"
	if _, err := Decode(data); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Decode: %v; want %q", err, want)
	}
	if _, err := ParseLink(Fragment(data)); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ParseLink: %v; want %q", err, want)
	}
	cfg.FailTime = 20
	s, err := Record(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Encode(s); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Encode: %v; want %q", err, want)
	}
	fail := []sim.Change{{Cycle: 10, Setting: sim.SetFail, Value: 2}}
	if s, err = Record(cfg, fail); err != nil {
		t.Fatal(err)
	}
	data, err = Encode(s)
	if err != nil {
		t.Fatalf("with a fail fault: %v", err)
	}
	if _, err := Decode(data); err != nil {
		t.Errorf("with a fail fault: %v", err)
	}
}
