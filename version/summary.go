package version

import (
	"sync"

	"github.com/lbsim/lbsim/sim"
)

// Summary is a run's summary as lbsim's JSON outputs give it: `lbsim run`
// and `lbsim replay --json`, a sweep's lines, the page's state().summary
// and the window's --json. It is the model's summary and then
// lbsim_version, the build that ran it (Info.Short). Every surface wraps
// the summary with Stamp, so they add the key alike and a page's summary
// stays equal to the command line's.
type Summary struct {
	*sim.Summary
	LbsimVersion string `json:"lbsim_version"`
}

// Stamp returns s as lbsim's JSON outputs give it, with the running
// build's version.
func Stamp(s *sim.Summary) Summary { return Summary{s, Short()} }

// Short is Read().Short(), read once: a sweep stamps every line.
var Short = sync.OnceValue(func() string { return Read().Short() })
