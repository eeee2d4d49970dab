package scenario_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/scenario"
)

// FuzzParse: Parse never panics, and what it accepts Marshal writes in a
// form Parse reads back to the same flags.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.toml")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"servers = 10\nrate = 0.6\n",
		"seed = \"18446744073709551615\"\n",
		"set = [\"500:rate=0.9\"]\nfault = [\"slow:3x4@500\"]\n",
		"block = \"none\"\nspeeds = [2, 1]\n",
		"[run]\nx = 1\n",
		"rate = 1e300\n",
		"trace = \"a\\u0000b\"\n",
		"servers.count = 3\n",
		"[run.x]\n",
		"[[servers]]\n",
		"set = {a={a={a=1}}}\n",
		"trace = \"\"\"\n[[[\\\"\"\"\"\n",
		"block = \"10.0.0.0/8,192.0.2.1\"\nweights = [3, 1]\n",
		"# [[[\ntrace = '{{{'\n",
		// The keys of fan-out, overload control, target tracking and cost.
		"queues = \"per-server\"\npolicy = \"round-robin\"\nfanout = 4\n",
		"discipline = \"adaptive-lifo\"\ncodel-interval = 40\ncodel-target = 10\nthrottle = 1.5\n",
		"concurrency-limit = \"aimd\"\nlimit-initial = 8\nlimit-min = 2\nlimit-max = 30\nlimit-latency = 25\n",
		"concurrency-limit = \"fixed:5\"\nserver-cost = 0.000001\n",
		"autoscaler = \"target\"\nscale-metric = \"inflight\"\nscale-target = 2.5\nscale-period = 5\nscale-tolerance = 0\nscale-down-window = 20\n",
		"autoscaler = \"target\"\nset = [\"30:scale-target=0.9\", \"40:scale-tolerance=0.2\", \"50:scale-down-window=0\", \"60:codel-target=5\", \"70:discipline=lifo\"]\n",
		"throttle = 10.001\ncodel-target = 200\nfanout = 65\nscale-target = nan\n",
		"throttle = 2\nfanout = 1e18\nserver-cost = -0\nlimit-min = 50\nlimit-max = 10\n",
		// Hedging's keys, and values with spaces around them or their pieces.
		"queues = \"per-server\"\nfanout = 3\nhedge-after = 40\nhedge-max = 2\nhedge-budget = 0.05\n",
		"hedge-after = 1000000000\nhedge-max = 5\nhedge-budget = 1.0000001\n",
		"concurrency-limit = \" fixed: 3 \"\nload-info = \"periodic: 5\"\nfault = [\" down: 2 @ 30 \"]\n",
		"hedge-budget = \"0.05\"\nset = [\"100:hedge-after=5\", \"100:fanout=2\"]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := scenario.Parse("f.toml", data)
		if err != nil {
			if strings.ContainsFunc(err.Error(), func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				t.Fatalf("the error holds a control character: %q", err)
			}
			return
		}
		out, err := scenario.Marshal("fuzz", s.Entries)
		if err != nil {
			t.Fatalf("Marshal of parsed %q: %v", data, err)
		}
		back, err := scenario.Parse("g.toml", out)
		if err != nil {
			t.Fatalf("Parse of Marshal's %q: %v", out, err)
		}
		if !slices.Equal(back.Args(), s.Args()) {
			t.Fatalf("round trip of %q: %q, want %q", data, back.Args(), s.Args())
		}
	})
}
