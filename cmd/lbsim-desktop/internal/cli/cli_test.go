package cli

import (
	"os"
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
