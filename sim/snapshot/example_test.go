package snapshot_test

import (
	"fmt"
	"reflect"

	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// Record a run with one change, encode it, turn it into a share link and
// replay what the link holds.
func Example() {
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Cycles = 42, 10_000
	change, _ := sim.ParseChange("500:rate=0.9")
	s, err := snapshot.Record(cfg, []sim.Change{change})
	if err != nil {
		fmt.Println(err)
		return
	}
	data, _ := snapshot.Encode(s)
	link := snapshot.Link("https://lbsim.example/", data)

	back, err := snapshot.ParseLink(link)
	if err != nil {
		fmt.Println(err)
		return
	}
	sum, err := snapshot.Verify(back)
	fmt.Println(err, reflect.DeepEqual(sum, s.Summary), sum.Cycles, len(back.Changes), back.Every)
	// Output: <nil> true 10000 1 500
}
