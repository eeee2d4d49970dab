package sim

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestParseRange(t *testing.T) {
	tests := []struct {
		in      string
		want    Range
		wantStr string // "" = error expected
	}{
		{"10.0.0.0/8", Range{0x0A000000, 0x0AFFFFFF}, "10.0.0.0/8"},
		{"0.0.0.0/0", Range{0, 0xFFFFFFFF}, "0.0.0.0/0"},
		{"192.0.2.7/32", Range{0xC0000207, 0xC0000207}, "192.0.2.7"},
		{"10.1.2.3/8", Range{0x0A000000, 0x0AFFFFFF}, "10.0.0.0/8"},
		{"255.255.255.255/31", Range{0xFFFFFFFE, 0xFFFFFFFF}, "255.255.255.254/31"},
		{"10.0.0.0-10.0.255.255", Range{0x0A000000, 0x0A00FFFF}, "10.0.0.0/16"},
		{" 10.0.0.1 - 10.0.0.2 ", Range{0x0A000001, 0x0A000002}, "10.0.0.1-10.0.0.2"},
		{"10.0.0.5-10.0.0.5", Range{0x0A000005, 0x0A000005}, "10.0.0.5"},
		{"0.0.0.0-255.255.255.255", Range{0, 0xFFFFFFFF}, "0.0.0.0/0"},
		{"192.0.2.7", Range{0xC0000207, 0xC0000207}, "192.0.2.7"},
		{"", Range{}, ""},
		{"   ", Range{}, ""},
		{"::1", Range{}, ""},
		{"2001:db8::/32", Range{}, ""},
		{"::ffff:10.0.0.1", Range{}, ""},
		{"::ffff:10.0.0.0/104", Range{}, ""},
		{"10.0.0.0/33", Range{}, ""},
		{"10.0.0.0/-1", Range{}, ""},
		{"10.0.0.0/", Range{}, ""},
		{"10.0.0", Range{}, ""},
		{"256.0.0.1", Range{}, ""},
		{"01.2.3.4", Range{}, ""},
		{"10.0.0.9-10.0.0.5", Range{}, ""},
		{"10.0.0.1-", Range{}, ""},
		{"-10.0.0.1", Range{}, ""},
		{"10.0.0.1-10.0.0.2-10.0.0.3", Range{}, ""},
		{"garbage", Range{}, ""},
	}
	for _, tt := range tests {
		got, err := ParseRange(tt.in)
		if tt.wantStr == "" {
			if err == nil {
				t.Errorf("ParseRange(%q) = %v, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseRange(%q) = %+v, %v, want %+v", tt.in, got, err, tt.want)
			continue
		}
		if s := got.String(); s != tt.wantStr {
			t.Errorf("ParseRange(%q).String() = %q, want %q", tt.in, s, tt.wantStr)
		}
		if back, err := ParseRange(got.String()); err != nil || back != got {
			t.Errorf("ParseRange(%q) = %+v, %v, want %+v back", got.String(), back, err, got)
		}
	}
}

func TestFirewall(t *testing.T) {
	tests := []struct {
		name   string
		ranges []Range
		want   []Range // merged
	}{
		{"empty", nil, nil},
		{"adjacent merge", []Range{{10, 20}, {21, 30}}, []Range{{10, 30}}},
		{"gap of one stays apart", []Range{{10, 20}, {22, 30}}, []Range{{10, 20}, {22, 30}}},
		{"nested", []Range{{5, 50}, {10, 20}}, []Range{{5, 50}}},
		{"overlap unsorted", []Range{{40, 60}, {10, 20}, {15, 45}}, []Range{{10, 60}}},
		{"duplicates", []Range{{7, 7}, {7, 7}}, []Range{{7, 7}}},
		{"address space edges", []Range{{0xFFFFFF00, 0xFFFFFFFF}, {0, 0}}, []Range{{0, 0}, {0xFFFFFF00, 0xFFFFFFFF}}},
		{"edges adjacent to the top", []Range{{0xFFFFFFFF, 0xFFFFFFFF}, {0xFFFFFFF0, 0xFFFFFFFE}}, []Range{{0xFFFFFFF0, 0xFFFFFFFF}}},
		{"everything", []Range{{0, 0xFFFFFFFF}, {5, 6}}, []Range{{0, 0xFFFFFFFF}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.ranges)
			fw := NewFirewall(tt.ranges)
			if !slices.Equal(tt.ranges, in) {
				t.Errorf("NewFirewall modified its argument")
			}
			if got := fw.Ranges(); !slices.Equal(got, tt.want) {
				t.Errorf("Ranges() = %v, want %v", got, tt.want)
			}
			// Blocks at and around every edge agrees with the ranges given.
			for _, r := range append(tt.ranges, Range{0, 0}, Range{0xFFFFFFFF, 0xFFFFFFFF}) {
				for _, a := range []uint32{r.First - 1, r.First, r.First + 1, r.Last - 1, r.Last, r.Last + 1} {
					want := slices.ContainsFunc(tt.ranges, func(r Range) bool { return r.Contains(a) })
					if got := fw.Blocks(a); got != want {
						t.Errorf("Blocks(%s) = %v, want %v", FormatIPv4(a), got, want)
					}
				}
			}
		})
	}
}

// TestFirewallAgainstNaive compares Blocks with a linear scan on random
// sets of ranges in a small address space.
func TestFirewallAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		var rs []Range
		for range r.IntN(6) {
			a := r.Uint32N(200)
			rs = append(rs, Range{a, a + r.Uint32N(20)})
		}
		fw := NewFirewall(rs)
		for a := uint32(0); a < 230; a++ {
			want := slices.ContainsFunc(rs, func(r Range) bool { return r.Contains(a) })
			if got := fw.Blocks(a); got != want {
				t.Fatalf("ranges %v: Blocks(%d) = %v, want %v", rs, a, got, want)
			}
		}
		m := fw.Ranges()
		for i := 1; i < len(m); i++ {
			if uint64(m[i].First) <= uint64(m[i-1].Last)+1 {
				t.Fatalf("ranges %v merged to %v: %v and %v touch", rs, m, m[i-1], m[i])
			}
		}
	}
}

const traceHeader = "cycle,src,dst,time,type\n"

func TestParseTrace(t *testing.T) {
	a, b := TraceRow{Cycle: 0, Src: 0x0A000001, Dst: 0xC0000207, Time: 5}, TraceRow{Cycle: 3, Src: 0xC0000207, Dst: 0x0A000001, Time: 1, Type: Streaming}
	tests := []struct {
		name string
		in   string
		want []TraceRow
	}{
		{"with type", traceHeader + "0,10.0.0.1,192.0.2.7,5,P\n3,192.0.2.7,10.0.0.1,1,S\n", []TraceRow{a, b}},
		{"without type column", "cycle,src,dst,time\n0,10.0.0.1,192.0.2.7,5\n", []TraceRow{a}},
		{"empty type is P", traceHeader + "0,10.0.0.1,192.0.2.7,5,\n3,192.0.2.7,10.0.0.1,1,s\n", []TraceRow{a, b}},
		{"header case, spaces and order", "Time, TYPE ,dst,src,Cycle\n5,P,192.0.2.7,10.0.0.1,0\n", []TraceRow{a}},
		{"fields with spaces", traceHeader + " 0 , 10.0.0.1 ,192.0.2.7, 5 ,P\n", []TraceRow{a}},
		{"byte order mark", "\ufeff" + traceHeader + "0,10.0.0.1,192.0.2.7,5,P\n", []TraceRow{a}},
		{"CRLF", "cycle,src,dst,time,type\r\n0,10.0.0.1,192.0.2.7,5,P\r\n3,192.0.2.7,10.0.0.1,1,S\r\n", []TraceRow{a, b}},
		{"no final newline", traceHeader + "0,10.0.0.1,192.0.2.7,5,P", []TraceRow{a}},
		{"blank lines skipped", traceHeader + "\n0,10.0.0.1,192.0.2.7,5,P\n\n", []TraceRow{a}},
		{"equal cycles", traceHeader + "3,192.0.2.7,10.0.0.1,1,S\n3,192.0.2.7,10.0.0.1,1,S\n", []TraceRow{b, b}},
		{"header only", traceHeader, nil},
	}
	for _, tt := range tests {
		got, err := ParseTrace(strings.NewReader(tt.in))
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s: ParseTrace = %v, %v, want %v", tt.name, got, err, tt.want)
		}
	}
}

func TestParseTraceErrors(t *testing.T) {
	const ok = "0,10.0.0.1,192.0.2.7,5,P\n"
	tests := []struct {
		name string
		in   string
		line int
		msg  string // part of the message
	}{
		{"empty file", "", 1, "empty"},
		{"missing column", "cycle,src,dst\n", 1, `missing column "time"`},
		{"unknown column", "cycle,src,dst,time,size\n", 1, `unknown column "size"`},
		{"duplicate column", "cycle,src,dst,time,src\n", 1, "twice"},
		{"header after blank lines", "\n\ncycle,src,dst\n", 3, `missing column "time"`},
		{"bad src", traceHeader + ok + "1,10.0.0.300,192.0.2.7,5,P\n", 3, "src"},
		{"IPv6 dst", traceHeader + "1,10.0.0.1,::1,5,P\n", 2, "dst"},
		{"too few fields", traceHeader + ok + "1,10.0.0.1,192.0.2.7,5\n", 3, "fields"},
		{"too many fields", traceHeader + "1,10.0.0.1,192.0.2.7,5,P,x\n", 2, "fields"},
		{"decreasing cycles", traceHeader + ok + "4" + ok[1:] + "2" + ok[1:], 4, "non-decreasing"},
		{"negative cycle", traceHeader + "-1,10.0.0.1,192.0.2.7,5,P\n", 2, "cycle"},
		{"cycle not a number", traceHeader + "x,10.0.0.1,192.0.2.7,5,P\n", 2, "cycle"},
		{"time 0", traceHeader + "0,10.0.0.1,192.0.2.7,0,P\n", 2, "time"},
		{"time too long", traceHeader + "0,10.0.0.1,192.0.2.7,1000001,P\n", 2, "time"},
		{"bad type", traceHeader + "0,10.0.0.1,192.0.2.7,5,X\n", 2, "type"},
		{"line after blank lines", traceHeader + ok + "\n\n" + "0,10.0.0.1,192.0.2.7,five,P\n", 5, "time"},
		{"bare quote", traceHeader + ok + "0,10.0\"0.1,192.0.2.7,5,P\n", 3, "quote"},
		{"binary (a snapshot)", "\x86\xa3lbsnap\x01\xa1p\x00\x14,x\n", 1, "not text: a trace is a CSV file"},
	}
	for _, tt := range tests {
		rows, err := ParseTrace(strings.NewReader(tt.in))
		var te *TraceError
		if !errors.As(err, &te) {
			t.Errorf("%s: ParseTrace = %v, %v, want a *TraceError", tt.name, rows, err)
			continue
		}
		if te.Line != tt.line || !strings.Contains(te.Error(), tt.msg) {
			t.Errorf("%s: error %q (line %d), want line %d mentioning %q", tt.name, te, te.Line, tt.line, tt.msg)
		}
	}
}

func TestParseRateAndFactor(t *testing.T) {
	rates := []struct {
		in   string
		want Rate
		str  string // "" = error expected
	}{
		{"0.45", 450_000, "0.45"},
		{"0", 0, "0"},
		{"1", RateScale, "1"},
		{" 2.5 ", 2_500_000, "2.5"},
		{".5", 500_000, "0.5"},
		{"3.", 3 * RateScale, "3"},
		{"0.000001", 1, "0.000001"},
		{"10000", MaxRate, "10000"},
		{"007.100", 7_100_000, "7.1"},
		{"0.0000001", 0, ""},
		{"-1", 0, ""},
		{"-0.5", 0, ""},
		{"+1", 0, ""},
		{"", 0, ""},
		{".", 0, ""},
		{"1e3", 0, ""},
		{"1.2.3", 0, ""},
		{"0x10", 0, ""},
		{"NaN", 0, ""},
		{"99999999999999999999", 0, ""},
	}
	for _, tt := range rates {
		got, err := ParseRate(tt.in)
		if tt.str == "" {
			if err == nil {
				t.Errorf("ParseRate(%q) = %d, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want || got.String() != tt.str {
			t.Errorf("ParseRate(%q) = %d (%q), %v, want %d (%q)", tt.in, got, got.String(), err, tt.want, tt.str)
		}
		if back, err := ParseRate(got.String()); err != nil || back != got {
			t.Errorf("ParseRate(%q) = %d, %v, want %d back", got.String(), back, err, got)
		}
	}
	if got := Rate(450_000).PerCycle(); got != 0.45 {
		t.Errorf("Rate(450000).PerCycle() = %v, want 0.45", got)
	}
	if got := Rate(-5).String(); got != "-0.000005" {
		t.Errorf("Rate(-5).String() = %q, want -0.000005", got)
	}
	factors := []struct {
		in   string
		want Factor
		str  string
	}{
		{"80", 80_000, "80"},
		{"2.5", 2_500, "2.5"},
		{"0.001", 1, "0.001"},
		{"0.0001", 0, ""},
		{"-3", 0, ""},
		{"abc", 0, ""},
	}
	for _, tt := range factors {
		got, err := ParseFactor(tt.in)
		if tt.str == "" {
			if err == nil {
				t.Errorf("ParseFactor(%q) = %d, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want || got.String() != tt.str {
			t.Errorf("ParseFactor(%q) = %d (%q), %v, want %d (%q)", tt.in, got, got.String(), err, tt.want, tt.str)
		}
	}
}

func TestParseChange(t *testing.T) {
	tests := []struct {
		in   string
		want Change
		ok   bool
	}{
		{"500:rate=0.6", Change{500, SetRate, 600_000}, true},
		{" 7 : scale-up = 2.5 ", Change{7, SetScaleUp, 2500}, true},
		{"1:wave=false", Change{1, SetWave, 0}, true},
		{"1:wave=true", Change{1, SetWave, 1}, true},
		{"9:policy=round-robin", Change{9, SetPolicy, int64(RoundRobin)}, true},
		{"3:cooldown=4", Change{3, SetCooldown, 4}, true},
		{"3:queue-cap=0", Change{3, SetQueueCap, 0}, true},
		{"0:rate=1", Change{}, false},
		{"-1:rate=1", Change{}, false},
		{"rate=1", Change{}, false},
		{"5:rate", Change{}, false},
		{"5:speed=3", Change{}, false},
		{"5:policy=fastest", Change{}, false},
		{"5:rate=-1", Change{}, false},
		{"5:cooldown=2.5", Change{}, false},
		{"5:wave=maybe", Change{}, false},
		{"x:rate=1", Change{}, false},
	}
	for _, tt := range tests {
		got, err := ParseChange(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseChange(%q) = %+v, %v, want %+v ok %v", tt.in, got, err, tt.want, tt.ok)
			continue
		}
		if tt.ok {
			if back, err := ParseChange(got.String()); err != nil || back != got {
				t.Errorf("ParseChange(%q) = %+v, %v, want %+v back", got.String(), back, err, got)
			}
		}
	}
}

// TestLongInputCutInMessages: a huge trace field or flag value is quoted
// and cut in the error, with its length noted, and control characters are
// escaped.
func TestLongInputCutInMessages(t *testing.T) {
	huge := strings.Repeat("9x", 5<<20)
	trace := "cycle,src,dst,time\n" + huge + ",1.1.1.1,2.2.2.2,3\n"
	_, err := ParseTrace(strings.NewReader(trace))
	if err == nil || len(err.Error()) > 300 || !strings.Contains(err.Error(), "(10485760 bytes)") {
		t.Errorf("trace: error of %d bytes: %.300v", len(err.Error()), err)
	}
	for _, f := range []func() error{
		func() error { _, err := ParseRange(huge); return err },
		func() error { _, err := ParseChange("5:rate=" + huge); return err },
		func() error { _, err := ParsePolicy("\x1b[2J" + huge); return err },
	} {
		err := f()
		if err == nil || len(err.Error()) > 300 || strings.Contains(err.Error(), "\x1b") {
			t.Errorf("error of %d bytes: %.300q", len(err.Error()), err)
		}
	}
}
