package preset_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/render/preset"
	"github.com/lbsim/lbsim/scenario"
	"github.com/lbsim/lbsim/sim"
)

func TestFromScenario(t *testing.T) {
	s, err := scenario.Parse("s.toml", []byte("servers = 10\nrate = 0.6\nblock = [\"10.0.0.0/8\", \"1.2.3.4\"]\nfault = [\"down:2@20\"]\ntrace = \"r.csv\"\nmax-queued = 100\n"))
	if err != nil {
		t.Fatal(err)
	}
	params, left := preset.FromScenario(s, func(name string) bool { return name == "rate" })
	want := []preset.Param{{Name: "servers", Value: "10"}, {Name: "block", Value: "10.0.0.0/8"}, {Name: "block", Value: "1.2.3.4"}, {Name: "fault", Value: "down:2@20"}}
	if !slices.Equal(params, want) {
		t.Errorf("params %v, want %v", params, want)
	}
	if len(left) != 2 || left[0] != "trace (the view reads no files)" || left[1] != "max-queued (the view's bound is its own)" {
		t.Errorf("left %q", left)
	}
	// The parameters read as the file's settings.
	p := preset.Read(params, func() uint64 { return 1 })
	if len(p.Problems) > 0 || p.Config.Servers != 10 || len(p.Config.Blocked) != 2 || len(p.Changes) != 1 {
		t.Errorf("read %+v", p)
	}
}

func TestScenarioQuery(t *testing.T) {
	q, left, err := preset.ScenarioQuery("s.toml", "servers = 10\nset = [\"500:rate=0.9\"]\n", "?seed=1&speed=max&present=1")
	if err != nil || len(left) != 0 {
		t.Fatal(err, left)
	}
	if want := "?speed=max&present=1&servers=10&set=500%3Arate%3D0.9"; q != want {
		t.Errorf("query %q, want %q", q, want)
	}
	if _, _, err := preset.ScenarioQuery("s.toml", "sevrers = 10\n", ""); err == nil {
		t.Error("an unknown key was accepted")
	}
}

// FuzzScenarioQuery is the page's path for a scenario file picked or
// dropped: the file's text and the address it replaces become a query;
// the page reads that query as it reads any address (QueryParams, Read),
// and what it reads is a valid run that starts. A file refused says so and
// gives no query.
func FuzzScenarioQuery(f *testing.F) {
	f.Add("servers = 4\ncycles = 300\nqueues = \"per-server\"\npolicy = \"jiq\"\nbalancers = 3\n", "?speed=20&present=1&seed=5")
	f.Add("set = [\"100:rate=0.9\"]\nfault = [\"down:1@50\"]\n", "?lesson=herding")
	f.Add("load-info = \"periodic:7\"\nqueues = \"per-server\"\npolicy = \"p2c\"\n", "")
	f.Add("trace = \"x.csv\"\n", "?%zz=1&theory=0")
	f.Add("servers = 0\n", "?pause-at=9")
	f.Add("[table]\nx = 1\n", "?speed=max")
	f.Add("servers = 2\nblock = \"10.0.0.0/8,192.0.2.1\"\n", "?embed=1&theory=1")
	f.Add("set = {a={a={a=1}}}\n", "?embed=1")
	f.Fuzz(func(t *testing.T, text, search string) {
		query, _, err := preset.ScenarioQuery("f.toml", text, search)
		if err != nil {
			if query != "" {
				t.Fatalf("refused (%v) yet gave the query %q", err, query)
			}
			return
		}
		if len(query) > preset.MaxQuery {
			t.Fatalf("a query of %d bytes, more than MaxQuery", len(query))
		}
		isEmbed := func(p preset.Param) bool { return p.Name == preset.EmbedName }
		if slices.ContainsFunc(preset.QueryParams(search), isEmbed) && !slices.ContainsFunc(preset.QueryParams(query), isEmbed) {
			t.Fatalf("the query %q lost embed of %q", query, search)
		}
		p := preset.Read(preset.QueryParams(query), func() uint64 { return 7 })
		if err := p.Config.Validate(); err != nil {
			t.Fatalf("the query %q reads to an invalid run: %v", query, err)
		}
		cfg := p.Config
		cfg.Cycles = min(cfg.Cycles, 50)
		m, err := sim.New(cfg)
		if err != nil {
			t.Fatalf("the query %q: %v", query, err)
		}
		m.Run()
	})
}

// TestScenarioQueryKeepsEmbed: an embedded slide (embed=1) that loads a
// scenario file stays embedded, with the view's switches, while the run's
// old settings go.
func TestScenarioQueryKeepsEmbed(t *testing.T) {
	q, _, err := preset.ScenarioQuery("s.toml", "servers = 3\n", "?embed=1&servers=9&theory=1&lesson=herding")
	if err != nil {
		t.Fatal(err)
	}
	if want := "?embed=1&theory=1&servers=3"; q != want {
		t.Errorf("query %q, want %q", q, want)
	}
}

// TestScenarioQueryTooLong: a file whose settings an address cannot
// carry is refused with the sizes and where to run it, and gives no
// query; one just within the bound is taken.
func TestScenarioQueryTooLong(t *testing.T) {
	speeds := func(n int) string {
		return "speeds = \"" + strings.TrimSuffix(strings.Repeat("1.25,", n), ",") + "\"\n"
	}
	q, _, err := preset.ScenarioQuery("big.toml", speeds(20000), "?speed=max")
	if err == nil || q != "" {
		t.Fatalf("a query of 20,000 speeds: %d bytes, %v; want refused", len(q), err)
	}
	for _, w := range []string{"big.toml: ", "more than the 8000 a web address can carry", "lbsim run --config"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message %q lacks %q", err, w)
		}
	}
	q, _, err = preset.ScenarioQuery("ok.toml", speeds(900), "")
	if err != nil || len(q) > preset.MaxQuery || len(q) < preset.MaxQuery/2 {
		t.Errorf("900 speeds: %d bytes, %v; want taken", len(q), err)
	}
}
