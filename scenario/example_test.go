package scenario_test

import (
	"fmt"

	"github.com/lbsim/lbsim/scenario"
)

func ExampleParse() {
	file := `# ten servers under a burst at cycle 500, with server 2 down for a while
servers = 10
rate = 0.6
policy = "p2c"
queues = "per-server"
set = ["500:rate=0.9"]
fault = ["down:2@20", "up:2@80"]
`
	s, err := scenario.Parse("burst.toml", []byte(file))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range s.Args() {
		fmt.Println(a)
	}
	_, err = scenario.Parse("typo.toml", []byte("servers = 10\nrat = 0.6\n"))
	fmt.Println(err)
	// Output:
	// --servers=10
	// --rate=0.6
	// --queues=per-server
	// --policy=p2c
	// --set=500:rate=0.9
	// --fault=down:2@20
	// --fault=up:2@80
	// typo.toml:2: unknown key "rat": did you mean rate? The keys are the settings that 'lbsim settings' lists, and set, fault, trace, max-queued
}
