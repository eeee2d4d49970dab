package sim

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"10.0.0.0/8", "0.0.0.0/0", "192.0.2.7/32", "10.1.2.3/8", "10.0.0.0-10.0.255.255",
		"192.0.2.7", "::1", "10.0.0.9-10.0.0.5", "255.255.255.255", " 1.2.3.4 - 5.6.7.8 ", "garbage"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRange(s)
		if err != nil {
			return
		}
		if r.First > r.Last {
			t.Fatalf("ParseRange(%q) = %+v: First > Last", s, r)
		}
		back, err := ParseRange(r.String())
		if err != nil || back != r {
			t.Fatalf("ParseRange(%q) = %+v; ParseRange(%q) = %+v, %v", s, r, r.String(), back, err)
		}
	})
}

func FuzzParseTrace(f *testing.F) {
	for _, s := range []string{
		traceHeader + "0,10.0.0.1,192.0.2.7,5,P\n3,192.0.2.7,10.0.0.1,1,S\n",
		"cycle,src,dst,time\r\n0,10.0.0.1,192.0.2.7,5\r\n",
		"\ufeffTime, TYPE ,dst,src,Cycle\n5,,192.0.2.7,10.0.0.1,0\n",
		traceHeader + "4,10.0.0.1,192.0.2.7,5,P\n2,10.0.0.1,192.0.2.7,5,P\n",
		traceHeader + "0,10.0\"0.1,192.0.2.7,5,P\n",
		"", "\n\ncycle,src\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 1<<16 {
			return
		}
		rows, err := ParseTrace(bytes.NewReader(in))
		if err != nil {
			var te *TraceError
			if !errors.As(err, &te) || te.Line < 1 {
				t.Fatalf("ParseTrace error %#v, want a *TraceError with Line ≥ 1", err)
			}
			return
		}
		for i, r := range rows {
			if r.Cycle < 0 || (i > 0 && r.Cycle < rows[i-1].Cycle) || r.Time < 1 || r.Time > MaxTaskTime || r.Type > Streaming {
				t.Fatalf("row %d = %+v is not valid", i, r)
			}
		}
		// What ParseTrace accepts, a Config accepts, and it reads back the same.
		cfg := traceConfig(1, 1, rows...)
		if err := cfg.Validate(); err != nil {
			t.Fatalf("Validate refuses parsed rows: %v", err)
		}
		var b strings.Builder
		b.WriteString(traceHeader)
		for _, r := range rows {
			fmt.Fprintf(&b, "%d,%s,%s,%d,%v\n", r.Cycle, FormatIPv4(r.Src), FormatIPv4(r.Dst), r.Time, r.Type)
		}
		back, err := ParseTrace(strings.NewReader(b.String()))
		if err != nil || len(back) != len(rows) {
			t.Fatalf("rows written back do not parse: %v", err)
		}
		for i := range rows {
			if back[i] != rows[i] {
				t.Fatalf("row %d = %+v, read back as %+v", i, rows[i], back[i])
			}
		}
	})
}

func FuzzParseChange(f *testing.F) {
	for _, s := range []string{"500:rate=0.6", " 7 : scale-up = 2.5 ", "1:wave=false", "9:policy=round-robin",
		"3:cooldown=4", "3:task-max=-5", "0:rate=1", "5:speed=3", "+8:queue-cap=12", "9:block=10.0.0.0/8", "4:unblock=1.2.3.4-1.2.9.9",
		"5:slow=3x4", "5:slow=S:2×0.25", "6:fail=1", "7:hang=S:2", "8:heal=2", "5:slow=3x0", "5:slow=3x100.001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseChange(s)
		if err != nil {
			return
		}
		if c.Cycle < 1 || c.Setting >= numSettings {
			t.Fatalf("ParseChange(%q) = %+v", s, c)
		}
		back, err := ParseChange(c.String())
		if err != nil || back != c {
			t.Fatalf("ParseChange(%q) = %+v; ParseChange(%q) = %+v, %v", s, c, c.String(), back, err)
		}
	})
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"0.45", "0", "1", ".5", "3.", "0.000001", "0.0000001", "-1", "+1", "1e3", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRate(s)
		if err != nil {
			return
		}
		if r < 0 {
			t.Fatalf("ParseRate(%q) = %d < 0", s, r)
		}
		if back, err := ParseRate(r.String()); err != nil || back != r {
			t.Fatalf("ParseRate(%q) = %d; ParseRate(%q) = %d, %v", s, r, r.String(), back, err)
		}
	})
}

func FuzzParseFactor(f *testing.F) {
	for _, s := range []string{"80", "2.5", "0.001", "0.0001", "-3", "abc", ".", "1.2.3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseFactor(s)
		if err != nil {
			return
		}
		if v < 0 {
			t.Fatalf("ParseFactor(%q) = %d < 0", s, v)
		}
		if back, err := ParseFactor(v.String()); err != nil || back != v {
			t.Fatalf("ParseFactor(%q) = %d; ParseFactor(%q) = %d, %v", s, v, v.String(), back, err)
		}
	})
}

// FuzzParseFault parses --fault values and runs each one accepted in a
// small run (both queue modes, a switch when it names S): nothing panics,
// the books hold, and the fault reads back as it was written.
func FuzzParseFault(f *testing.F) {
	for _, s := range []string{"down:1@5", "up:S:2@9", "slow:2x4@3", "slow:1×0.5@2", "fail:3@1", "hang:2@4",
		"heal:1@6", "slow:2x@3", "fail:@1", "hang:0@1", "sideways:1@2", "down:1@0"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, perServer bool) {
		c, err := ParseFault(s)
		if err != nil {
			return
		}
		if back, err := ParseChange(c.String()); err != nil || back != c {
			t.Fatalf("ParseFault(%q) = %v; ParseChange reads back %+v, %v", s, c, back, err)
		}
		cfg := DefaultConfig()
		cfg.Seed, cfg.Cycles, cfg.Servers, cfg.MinServers, cfg.MaxServers = 1, 60, 3, 1, 4
		cfg.Switch = c.faultRef().Balancer() == 1
		cfg.FailTime = 3
		if perServer {
			cfg.Queues, cfg.Policy = PerServer, LeastWork
		}
		if c.Cycle > cfg.Cycles {
			return
		}
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if m.Schedule(c) != nil {
			return
		}
		m.Run()
		if sum := m.Summary(); !sum.Consistent {
			t.Fatalf("%q: the books do not hold: %+v", s, sum)
		}
	})
}

// FuzzParseLoadInfo: --load-info reads exact, local and periodic:T; what
// it accepts writes back as a text that reads back the same, Set stores
// what it reads, and the table's check decides the range (a period of 0 or above 10⁶ is refused, never stored).
func FuzzParseLoadInfo(f *testing.F) {
	for _, s := range []string{"exact", "local", "periodic:1", "periodic:1000000", "periodic:1000001", "periodic:0",
		"periodic:-5", "periodic:", "periodic:+3", "periodic:1e3", "Periodic:5", "exact ", "", "periodic:99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLoadInfo(strings.TrimSpace(s)) // as Set trims a value
		var c Config
		setErr := c.Set("load-info", s)
		if err != nil {
			if setErr == nil {
				t.Fatalf("Set took %q, which ParseLoadInfo refuses: %v", s, err)
			}
			return
		}
		if setErr == nil && c.LoadInfo != l {
			t.Fatalf("Set(%q) stored %v, ParseLoadInfo reads %v", s, c.LoadInfo, l)
		}
		if back, err := ParseLoadInfo(l.String()); err != nil || back != l {
			t.Fatalf("%v does not read back: %v, %v", l, back, err)
		}
		inRange := RowNamed("load-info").checkValue(int64(l), false) == nil
		if inRange != (l == LoadExact || l == LoadLocal || (l > 0 && l <= MaxLoadPeriod)) {
			t.Fatalf("%v: the table's check says in range = %v", l, inRange)
		}
	})
}

// FuzzParseHundredths parses --throttle values: a value read is not
// negative, reads back from its String, and a Config holding it either
// validates (0, or 1 … 10) or is refused naming throttle.
func FuzzParseHundredths(f *testing.F) {
	for _, s := range []string{"2", "1.5", "10", "0", "0.5", "10.01", "2.001", "-1", "abc", ".", "1e2", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseHundredths(s)
		if err != nil {
			return
		}
		if v < 0 {
			t.Fatalf("ParseHundredths(%q) = %d < 0", s, v)
		}
		if back, err := ParseHundredths(v.String()); err != nil || back != v {
			t.Fatalf("ParseHundredths(%q) = %d; ParseHundredths(%q) = %d, %v", s, v, v.String(), back, err)
		}
		cfg := DefaultConfig()
		cfg.Throttle = v
		err = cfg.Validate()
		if ok := v == 0 || v >= MinThrottle && v <= MaxThrottle; ok != (err == nil) {
			t.Fatalf("throttle %v: Validate %v", v, err)
		}
		if err != nil && !strings.Contains(err.Error(), "throttle") {
			t.Fatalf("throttle %v refused without naming it: %v", v, err)
		}
	})
}
