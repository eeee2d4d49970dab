package cli

import (
	"slices"
	"strings"

	"github.com/lbsim/lbsim/render/preset"
	"github.com/lbsim/lbsim/sim"
)

// param is a settings flag: its value goes to Options.Params, as the
// page's query parameter of that name would. A switch (a true/false
// setting, --present, --theory) may be given alone, as lbsim run takes
// --switch: --switch means --switch=true.
type param struct {
	o      *Options
	name   string
	isBool bool
}

func (p param) String() string { return "" }

func (p param) Set(v string) error {
	p.o.Params = append(p.o.Params, preset.Param{Name: p.name, Value: v})
	return nil
}

func (p param) IsBoolFlag() bool { return p.isBool }

// isSwitch reports whether the flag name is on or off: a true/false row
// of the settings table, or one of the view's switches.
func isSwitch(name string) bool {
	if r := sim.RowNamed(name); r != nil {
		return r.IsBool()
	}
	return slices.Contains(preset.ViewSwitches(), name)
}

// JoinSwitchValues rewrites "--present 1" and "--switch true" (the
// spellings the window took when every flag wanted a value) as
// "--present=1", so that a switch may be given alone or with its value
// after a space; flag parsing would read the value as an argument.
func JoinSwitchValues(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		out = append(out, a)
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		name, hasValue := strings.TrimLeft(a, "-"), strings.Contains(a, "=")
		if !strings.HasPrefix(a, "-") || hasValue || !isSwitch(name) || i+1 == len(args) {
			continue
		}
		if preset.IsOnOff(args[i+1]) {
			out[len(out)-1] = a + "=" + args[i+1]
			i++
		}
	}
	return out
}
