package cli

import (
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestHelpTextIsCurrent checks that the help the command prints before the
// window starts (help_text.h) is the flags' help now: run
// `go generate ./cmd/lbsim-desktop` after changing a flag.
func TestHelpTextIsCurrent(t *testing.T) {
	got, err := os.ReadFile("../../help_text.h")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != CHeader() {
		t.Error("cmd/lbsim-desktop/help_text.h is out of date: run go generate ./cmd/lbsim-desktop")
	}
}

func TestHelpWording(t *testing.T) {
	u := Usage()
	for _, want := range []string{"-speed", "cycles per second", "-pause-at cycle", "-lesson NAME", "scaling-band", "-base address", "xvfb-run -a", "the run's setting, as lbsim run --servers"} {
		if !strings.Contains(u, want) {
			t.Errorf("the help does not say %q", want)
		}
	}
	if m := regexp.MustCompile(`(?m)^  -[a-z]`).FindString(u); m != "" {
		t.Errorf("the help lists a flag with one dash (%q): lbsim and the docs spell them --name", m)
	}
	if strings.Contains(u, "as `lbsim run --speed`") || strings.Contains(u, "lbsim run --pause-at") {
		t.Error("the help still calls speed or pause-at lbsim run flags")
	}
}

func TestFlagsFillOptions(t *testing.T) {
	fs, o := NewFlagSet(&strings.Builder{})
	if err := fs.Parse([]string{"--seed", "4", "--speed", "max", "--base", "http://x/", "--exit-after", "3"}); err != nil {
		t.Fatal(err)
	}
	if len(o.Params) != 2 || o.Params[1].Name != "speed" || o.Base != "http://x/" || o.ExitAfter != 3 {
		t.Errorf("%+v", o)
	}
}

// TestSwitchesAlone: --switch, --wave, --present and --theory may be
// given alone, as lbsim run takes --switch (lbsim-desktop --switch
// --exit-after 5 exited 2), and the old spellings with a value after a
// space still work.
func TestSwitchesAlone(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []string // name=value of the params, in order
	}{
		{[]string{"--switch", "--exit-after", "5"}, []string{"switch=true"}},
		{[]string{"--present", "--theory", "--seed", "3"}, []string{"present=true", "theory=true", "seed=3"}},
		{[]string{"--lesson", "firewall", "--present", "1"}, []string{"lesson=firewall", "present=1"}},
		{[]string{"--switch", "true", "--wave", "false"}, []string{"switch=true", "wave=false"}},
		{[]string{"--wave=false", "--present=0"}, []string{"wave=false", "present=0"}},
	} {
		fs, o := NewFlagSet(&strings.Builder{})
		if err := fs.Parse(JoinSwitchValues(tt.args)); err != nil || fs.NArg() != 0 {
			t.Errorf("%v: %v, arguments left %v", tt.args, err, fs.Args())
			continue
		}
		var got []string
		for _, p := range o.Params {
			got = append(got, p.Name+"="+p.Value)
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("%v: params %v, want %v", tt.args, got, tt.want)
		}
	}
	// A value flag still takes the next argument: --seed 1 is not a switch.
	fs, o := NewFlagSet(&strings.Builder{})
	if err := fs.Parse(JoinSwitchValues([]string{"--seed", "1", "--exit-after", "5"})); err != nil || o.ExitAfter != 5 || len(o.Params) != 1 {
		t.Errorf("--seed 1 --exit-after 5: %v %+v", err, o)
	}
}

// TestReadConfig: --config puts the file's settings before the flags, a
// flag replaces the file's value (a list as a whole), and the keys the
// window does not take are named.
func TestReadConfig(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/s.toml"
	if err := os.WriteFile(path, []byte("servers = 10\nrate = 0.6\nfault = [\"down:2@20\"]\ntrace = \"r.csv\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fs, o := NewFlagSet(&strings.Builder{})
	if err := fs.Parse([]string{"--config", path, "--rate", "0.3", "--fault", "down:1@5"}); err != nil {
		t.Fatal(err)
	}
	left, err := o.ReadConfig()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range o.Params {
		got = append(got, p.Name+"="+p.Value)
	}
	if want := "servers=10 rate=0.3 fault=down:1@5"; strings.Join(got, " ") != want {
		t.Errorf("params %q, want %q", got, want)
	}
	if len(left) != 1 || !strings.HasPrefix(left[0], "trace") {
		t.Errorf("left %q, want trace", left)
	}
	os.WriteFile(path, []byte("sevrers = 10\n"), 0o644)
	if _, err := o.ReadConfig(); err == nil || !strings.Contains(err.Error(), "did you mean servers?") {
		t.Errorf("a typo: %v", err)
	}
}

// TestReadConfigBounded: --config reads no more than a scenario file's
// largest size, so a device without end (/dev/zero) or a file of 600 MB
// is refused after reading 1 MB, and a directory is named as one.
func TestReadConfigBounded(t *testing.T) {
	big := t.TempDir() + "/big.toml"
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(600 << 20); err != nil { // sparse: no disk taken
		t.Fatal(err)
	}
	f.Close()
	for _, tt := range []struct{ path, want string }{
		{"/dev/zero", "a scenario file holds at most 1048576"},
		{big, "a scenario file holds at most 1048576"},
		{t.TempDir(), "is a directory"},
	} {
		if _, err := os.Stat(tt.path); err != nil {
			continue // no /dev/zero here
		}
		o := &Options{Config: tt.path}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := o.ReadConfig()
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("--config %s: %v, want %q", tt.path, err, tt.want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
			t.Errorf("--config %s: read %d bytes into memory, want at most 16 MB", tt.path, grew)
		}
	}
}

// TestDropForReplay: with a snapshot to replay, the run's settings given
// (and --config) are taken out and named, while the view's own stay.
func TestDropForReplay(t *testing.T) {
	fs, o := NewFlagSet(&strings.Builder{})
	if err := fs.Parse([]string{"--servers", "7", "--speed", "60", "--config", "s.toml", "--rate", "0.3", "--servers", "8", "--present", "r.lbsnap"}); err != nil {
		t.Fatal(err)
	}
	ignored := o.DropForReplay()
	if want := "--servers --rate --config"; strings.Join(ignored, " ") != want {
		t.Errorf("ignored %q, want %q", ignored, want)
	}
	var kept []string
	for _, p := range o.Params {
		kept = append(kept, p.Name)
	}
	if want := "speed present"; strings.Join(kept, " ") != want || o.Config != "" {
		t.Errorf("kept %q and config %q, want %q and none", kept, o.Config, want)
	}
	if _, o := NewFlagSet(&strings.Builder{}); len(o.DropForReplay()) != 0 {
		t.Errorf("nothing given: something ignored")
	}
}
