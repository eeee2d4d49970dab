package version

import (
	"encoding/json"
	"runtime/debug"
	"strconv"
	"testing"
)

func TestShort(t *testing.T) {
	for _, tt := range []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{debug.BuildInfo{Main: debug.Module{Version: ""}}, "devel"},
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "v1.2.0"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "94ec452d1f3e1234567890"}, {Key: "vcs.modified", Value: "true"}}}, "devel+94ec452d1f3e-modified"},
		{debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261205153000-94ec452d1f3e+dirty"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "94ec452d1f3e1234567890"}, {Key: "vcs.modified", Value: "true"}}}, "v0.0.0-20261205153000-94ec452d1f3e+dirty"},
	} {
		in := FromBuildInfo(&tt.bi)
		if got := in.Short(); got != tt.want {
			t.Errorf("Short of %+v = %q, want %q", tt.bi, got, tt.want)
		}
		if s := in.String(); len(s) < len("lbsim ")+len(tt.want) || s[:6+len(tt.want)] != "lbsim "+tt.want {
			t.Errorf("String = %q, want it to start with lbsim %s", s, tt.want)
		}
	}
}

// TestStamp: a stamped summary is the summary's JSON object with
// lbsim_version added as its last key, nested objects untouched; a value
// that is no object is refused, not written half.
func TestStamp(t *testing.T) {
	type counts struct {
		Completed int64 `json:"completed"`
	}
	sum := struct {
		Seed uint64  `json:"seed"`
		P    *counts `json:"P,omitempty"`
		S    *counts `json:"S,omitempty"`
	}{1, &counts{3}, &counts{4}}
	plain, _ := json.Marshal(sum)
	stamped, err := json.Marshal(Stamp(&sum))
	want := string(plain[:len(plain)-1]) + `,"lbsim_version":` + strconv.Quote(Read().Short()) + "}"
	if err != nil || string(stamped) != want {
		t.Errorf("stamped\n%s (%v)\nwant\n%s", stamped, err, want)
	}
	if got, err := json.Marshal(Stamp(struct{}{})); err != nil || string(got) != `{"lbsim_version":`+strconv.Quote(Read().Short())+"}" {
		t.Errorf("an empty object stamped = %s, %v", got, err)
	}
	if _, err := json.Marshal(Stamp([]int{1})); err == nil {
		t.Error("a list stamped: no error")
	}
}
