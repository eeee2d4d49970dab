package sim

import (
	"slices"
	"strings"
)

// UnusedError reports a setting that was given but that the rest of the
// configuration makes do nothing.
type UnusedError struct {
	Field  string  // the setting's flag name, without dashes
	Why    string  // why it does nothing, and what would use it
	Change *Change // the change that sets it (--set), or nil for a flag
}

// Error names the setting (or the change that sets it) and says why it
// does nothing.
func (e *UnusedError) Error() string {
	if e.Change != nil {
		return "set " + e.Change.String() + ": " + e.Why
	}
	return e.Field + ": " + e.Why
}

// Flag is the setting as the command line gave it: "--choices", or
// "--set 100:choices=3" for a change.
func (e *UnusedError) Flag() string {
	if e.Change != nil {
		return "--set " + e.Change.String()
	}
	return "--" + e.Field
}

// CheckUnused reports the first setting named in given (in the table's
// order) that cfg, with the changes scheduled, would not read at any cycle
// (Unread): a shape parameter the service shape does not read, a policy's
// parameter without a policy that reads it in the queue mode, a setting
// that refines one that is never on. The command line refuses such a
// setting and the page warns, rather than accept it silently. A change of
// such a setting (--set CYCLE:NAME=VALUE) follows the same rule: it is
// refused as the flag would be.
func CheckUnused(cfg *Config, given map[string]bool, changes []Change) error {
	unread := Unread(cfg, changes)
	for _, r := range settingRows {
		if why, ok := unread[r.Name]; ok && given[r.Name] {
			return &UnusedError{Field: r.Name, Why: why}
		}
	}
	if ues := UnreadChanges(cfg, changes); len(ues) > 0 {
		return ues[0]
	}
	return nil
}

// checkFaultNeeds reports the first setting of cfg (in the table's order)
// that only a fault reads (fail-time: a fail fault), set away from its
// default while changes schedule no such fault, as CheckUnused refuses
// its flag: for a configuration whose flags are not known (a snapshot's),
// a value other than the default was given.
func checkFaultNeeds(cfg *Config, changes []Change) error {
	for i := range settingRows {
		r := &settingRows[i]
		if r.readsChanges == nil || r.readsChanges(changes) || r.Get(cfg) == r.def {
			continue
		}
		if !slices.ContainsFunc(configStates(cfg, changes), r.reads) {
			return &UnusedError{Field: r.Name, Why: r.readWhy(cfg)}
		}
	}
	return nil
}

// UnreadChanges reports, in their order, the changes (--set) of settings
// that a run with configuration cfg and these changes would not read at
// any cycle (Unread), each as CheckUnused refuses it.
func UnreadChanges(cfg *Config, changes []Change) []*UnusedError {
	var out []*UnusedError
	unread := Unread(cfg, changes)
	for i, c := range changes {
		if r := ChangeRow(c.Setting); r != nil {
			if why, ok := unread[r.Name]; ok {
				why = strings.ReplaceAll(why, "drop --"+r.Name, "drop this --set")
				out = append(out, &UnusedError{Field: r.Name, Why: why, Change: &changes[i]})
			}
		}
	}
	return out
}

// joinShapes writes shapes as "a, b or c".
func joinShapes(shapes []Service) string {
	names := make([]string, len(shapes))
	for i, s := range shapes {
		names[i] = s.String()
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
