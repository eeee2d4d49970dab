package sweep

import (
	"slices"
	"strings"
	"testing"
)

func TestParseVary(t *testing.T) {
	for _, tc := range []struct {
		in   string
		name string
		want []string
		err  string
	}{
		{"rate=0.3:0.9:0.1", "rate", []string{"0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9"}, ""},
		{"rate=0.3:1:0.25", "rate", []string{"0.3", "0.55", "0.8"}, ""},
		{"servers=10:40:10", "servers", []string{"10", "20", "30", "40"}, ""},
		{"x=-1:1:0.5", "x", []string{"-1", "-0.5", "0", "0.5", "1"}, ""},
		{"x=.5:1.5:.5", "x", []string{"0.5", "1", "1.5"}, ""},
		{"x=2:2:1", "x", []string{"2"}, ""},
		{"policy=round-robin, random ,swrr", "policy", []string{"round-robin", "random", "swrr"}, ""},
		{"weights=3,1;1,1", "weights", []string{"3,1", "1,1"}, ""},
		{"set=500:rate=0.9", "set", []string{"500:rate=0.9"}, ""},
		{"block=1.2.3.4", "block", []string{"1.2.3.4"}, ""},
		{"rate", "", nil, "want NAME="},
		{"=1,2", "", nil, "want NAME="},
		{"rate=", "", nil, "no values"},
		{"rate=,", "", nil, "no values"},
		{"rate=1:0:1", "", nil, "range is empty"},
		{"rate=0:1:-1", "", nil, "step -1 must be greater than 0"},
		{"rate=0:1:0.0000001", "", nil, "more than 1000000 values"},
		{"rate=0:1e5:1", "rate", []string{"0:1e5:1"}, ""}, // not a range: a single odd value, which run then refuses
		{"rate=1,1", "", nil, "listed twice"},
		{"rate=1:9999999999999999:1", "", nil, "too many digits"},
	} {
		d, err := ParseVary(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseVary(%q) = %v, %v; want an error with %q", tc.in, d, err, tc.err)
			}
			continue
		}
		if err != nil || d.Name != tc.name || !slices.Equal(d.Values, tc.want) {
			t.Errorf("ParseVary(%q) = %v, %v; want %s %v", tc.in, d, err, tc.name, tc.want)
		}
	}
}

func TestGridOrder(t *testing.T) {
	g, err := NewGrid([]Dimension{{"a", []string{"1", "2"}}, {"b", []string{"x", "y", "z"}}}, 2, 100)
	if err != nil {
		t.Fatal(err)
	}
	if g.Points() != 6 || g.Runs() != 12 {
		t.Fatalf("points %d runs %d, want 6 and 12", g.Points(), g.Runs())
	}
	var got []string
	for k := range g.Runs() {
		r := g.Run(k)
		got = append(got, r.Point.String()+" r"+string(rune('0'+r.Replication)))
		if r.Seed != 100+uint64(r.Replication) || r.Index != k {
			t.Errorf("run %d: %+v", k, r)
		}
		line, _ := AppendLine(nil, r, nil, []byte(`{"x": 1}`))
		l, err := ParseLine(line[:len(line)-1])
		if err != nil {
			t.Fatal(err)
		}
		if back, ok := g.RunOf(l); !ok || back != k || l.Key() != KeyOf(r) {
			t.Errorf("run %d: RunOf gives %d %v, keys %v %v", k, back, ok, l.Key(), KeyOf(r))
		}
	}
	want := []string{"a=1 b=x r0", "a=1 b=x r1", "a=1 b=y r0", "a=1 b=y r1", "a=1 b=z r0", "a=1 b=z r1",
		"a=2 b=x r0", "a=2 b=x r1", "a=2 b=y r0", "a=2 b=y r1", "a=2 b=z r0", "a=2 b=z r1"}
	if !slices.Equal(got, want) {
		t.Errorf("order\n got %v\nwant %v", got, want)
	}
	if js := string(g.Point(0).AppendJSON(nil)); js != `{"a":1,"b":"x"}` {
		t.Errorf("point JSON %s", js)
	}
	if _, err := NewGrid([]Dimension{{"a", []string{"1"}}, {"a", []string{"2"}}}, 1, 0); err == nil {
		t.Error("a name varied twice was accepted")
	}
	if _, err := NewGrid(nil, 0, 0); err == nil {
		t.Error("0 replications were accepted")
	}
	if _, err := NewGrid(nil, 2, ^uint64(0)); err == nil {
		t.Error("seeds beyond 64 bits were accepted")
	}
}

func TestShard(t *testing.T) {
	for _, tc := range []struct {
		in  string
		ok  bool
		n   int64
		has []int64
	}{
		{"0/1", true, 10, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"1/3", true, 10, []int64{1, 4, 7}},
		{"2/3", true, 10, []int64{2, 5, 8}},
		{"9/12", true, 10, []int64{9}},
		{"10/12", true, 10, nil},
		{"3/3", false, 0, nil},
		{"-1/3", false, 0, nil},
		{"1/0", false, 0, nil},
		{"1", false, 0, nil},
		{"a/b", false, 0, nil},
	} {
		s, err := ParseShard(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParseShard(%q): %v", tc.in, err)
			continue
		}
		if !tc.ok {
			continue
		}
		var has []int64
		for k := range tc.n {
			if s.Has(k) {
				has = append(has, k)
			}
		}
		if !slices.Equal(has, tc.has) || s.Size(tc.n) != int64(len(tc.has)) {
			t.Errorf("%s of %d: %v (size %d), want %v", tc.in, tc.n, has, s.Size(tc.n), tc.has)
		}
	}
}

func FuzzParseVary(f *testing.F) {
	for _, s := range []string{"rate=0.3:0.9:0.1", "a=1,2", "w=3,1;1,1", "x=-.5:.5:.25", "=", "a=1:2:3:4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseVary(s)
		if err != nil {
			return
		}
		if d.Name == "" || len(d.Values) == 0 || len(d.Values) > maxRangeValues+1 {
			t.Fatalf("ParseVary(%q) = %v", s, d)
		}
		seen := map[string]bool{}
		for _, v := range d.Values {
			if v == "" || seen[v] {
				t.Fatalf("ParseVary(%q): empty or repeated value in %v", s, d.Values)
			}
			seen[v] = true
		}
		// Every point's JSON is valid and reads back to the same values.
		g, err := NewGrid([]Dimension{d}, 1, 0)
		if err != nil {
			return
		}
		line, err := AppendLine(nil, g.Run(g.Runs()-1), nil, []byte("{}"))
		if err != nil {
			t.Fatal(err)
		}
		l, err := ParseLine(line[:len(line)-1])
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if k, ok := g.RunOf(l); !ok || k != g.Runs()-1 {
			t.Fatalf("%s: RunOf %d %v", line, k, ok)
		}
	})
}

func FuzzParseShard(f *testing.F) {
	f.Add("0/1")
	f.Add("3/4")
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		if sh.N < 1 || sh.I < 0 || sh.I >= sh.N {
			t.Fatalf("ParseShard(%q) = %+v", s, sh)
		}
		if n := int64(1000); sh.Size(n) != (n+sh.N-1-sh.I)/sh.N {
			t.Fatalf("%+v: size %d of %d", sh, sh.Size(n), n)
		}
	})
}
