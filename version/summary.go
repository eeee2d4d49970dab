package version

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
)

// Summary is a run's summary as lbsim's JSON outputs give it: `lbsim run`
// and `lbsim replay --json`, a sweep's lines, the page's state().summary
// and the window's --json. It is the model's summary (any value whose JSON
// is an object) and then lbsim_version, the build that ran it
// (Info.Short). Every surface wraps the summary with Stamp, so they add
// the key alike and a page's summary stays equal to the command line's.
// The package knows nothing of the model: it adds one key to an object.
type Summary struct {
	Summary      any
	LbsimVersion string
}

// Stamp returns s as lbsim's JSON outputs give it, with the running
// build's version.
func Stamp(s any) Summary { return Summary{s, Short()} }

// MarshalJSON writes the summary's object with lbsim_version added as its
// last key.
func (s Summary) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(s.Summary)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimRight(b, " \n")
	key := `"lbsim_version":` + strconv.Quote(s.LbsimVersion) + "}"
	switch {
	case bytes.Equal(b, []byte("{}")):
		return append(b[:1], key...), nil
	case len(b) > 0 && b[0] == '{' && b[len(b)-1] == '}':
		return append(append(b[:len(b)-1], ','), key...), nil
	}
	return nil, &json.UnsupportedValueError{Str: "version.Stamp: not an object: " + string(b[:min(len(b), 40)])}
}

// Short is Read().Short(), read once: a sweep stamps every line.
var Short = sync.OnceValue(func() string { return Read().Short() })
