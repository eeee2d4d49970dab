package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/lbsim/lbsim/sim"
)

// The flag.Value types below turn a bad value into a message that says what
// is allowed; range checks happen later in sim.Config.Validate.

type intValue struct{ p *int }

func (v intValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.Itoa(*v.p)
}

func (v intValue) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return errors.New("want a whole number")
	}
	*v.p = n
	return nil
}

type int64Value struct{ p *int64 }

func (v int64Value) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatInt(*v.p, 10)
}

func (v int64Value) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return errors.New("want a whole number")
	}
	*v.p = n
	return nil
}

type seedValue struct{ p *uint64 }

func (v seedValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatUint(*v.p, 10)
}

func (v seedValue) Set(s string) error {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return fmt.Errorf("want a whole number from 0 to %d", uint64(1<<64-1))
	}
	*v.p = n
	return nil
}

type rateValue struct{ p *sim.Rate }

func (v rateValue) String() string {
	if v.p == nil {
		return "0"
	}
	return v.p.String()
}

func (v rateValue) Set(s string) error {
	r, err := sim.ParseRate(s)
	if err != nil {
		return fmt.Errorf("%v; want arrivals per cycle like 0.45, from 0 to %v", err, sim.MaxRate)
	}
	*v.p = r
	return nil
}

type factorValue struct{ p *sim.Factor }

func (v factorValue) String() string {
	if v.p == nil {
		return "0"
	}
	return v.p.String()
}

func (v factorValue) Set(s string) error {
	f, err := sim.ParseFactor(s)
	if err != nil {
		return fmt.Errorf("%v; want requests per active server like 80 (up to three decimals)", err)
	}
	*v.p = f
	return nil
}

type policyValue struct{ p *sim.Policy }

func (v policyValue) String() string {
	if v.p == nil {
		return ""
	}
	return v.p.String()
}

func (v policyValue) Set(s string) error {
	p, err := sim.ParsePolicy(strings.TrimSpace(s))
	if err != nil {
		return err
	}
	*v.p = p
	return nil
}

// blockList collects --block values; "none" clears the list.
type blockList struct {
	ranges *[]sim.Range
	set    bool
}

func (v *blockList) String() string {
	if v == nil || v.ranges == nil {
		return ""
	}
	var parts []string
	for _, r := range *v.ranges {
		parts = append(parts, r.String())
	}
	return strings.Join(parts, ",")
}

func (v *blockList) Set(s string) error {
	if !v.set {
		*v.ranges = nil // the first --block replaces the default list
		v.set = true
	}
	if strings.TrimSpace(s) == "none" {
		return nil
	}
	r, err := sim.ParseRange(s)
	if err != nil {
		return err
	}
	*v.ranges = append(*v.ranges, r)
	return nil
}

// changeList collects --set values.
type changeList struct{ changes *[]sim.Change }

func (v changeList) String() string { return "" }

func (v changeList) Set(s string) error {
	c, err := sim.ParseChange(s)
	if err != nil {
		return err
	}
	*v.changes = append(*v.changes, c)
	return nil
}

// flagError rewrites the flag package's "-name" into the "--name" spelling
// the documentation uses.
func flagError(err error) string {
	return strings.Replace(err.Error(), "flag -", "flag --", 1)
}

// visited returns the names of the flags given on the command line.
func visited(fs *flag.FlagSet) map[string]bool {
	seen := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { seen[f.Name] = true })
	return seen
}
