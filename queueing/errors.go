package queueing

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// MaxServers is the largest number of servers c the package accepts. Erlang
// B and C cost one step per server, so this bounds the running time of any
// call (a few tens of milliseconds at the limit).
const MaxServers = 10_000_000

// ErrInvalid is matched (with [errors.Is]) by every error about an input
// outside its allowed range; such errors are [*InputError] values.
var ErrInvalid = errors.New("queueing: invalid input")

// ErrUnstable is matched (with [errors.Is]) by every error about a load
// ρ = a/c ≥ 1; such errors are [*UnstableError] values.
var ErrUnstable = errors.New("queueing: unstable queue (ρ ≥ 1)")

// InputError reports an input outside its allowed range. It matches
// [ErrInvalid].
type InputError struct {
	Name    string // the input, as a user knows it, e.g. "servers c"
	Value   string // the value given, formatted
	Allowed string // what is allowed, e.g. "a whole number from 1 to 10000000"
}

// Error says which input is wrong, its value and what is allowed.
func (e *InputError) Error() string {
	return fmt.Sprintf("queueing: %s = %s is not allowed: %s", e.Name, e.Value, e.Allowed)
}

// Is reports whether target is [ErrInvalid].
func (e *InputError) Is(target error) bool { return target == ErrInvalid }

// UnstableError reports an offered load a that is at least the number of
// servers c, so ρ = a/c ≥ 1: arrivals come faster than the servers can
// finish them and the queue grows without bound. It matches [ErrUnstable].
type UnstableError struct {
	Servers int     // c
	Load    float64 // offered load a = λ·m, in erlangs
}

// Error explains, in words a student understands, why there is no answer.
func (e *UnstableError) Error() string {
	return fmt.Sprintf("queueing: offered load a = λ·m = %s ≥ c = %d servers (ρ = a/c = %s): "+
		"the queue grows without bound; Erlang C applies only when ρ < 1",
		short(e.Load), e.Servers, short(e.Load/float64(e.Servers)))
}

// Is reports whether target is [ErrUnstable].
func (e *UnstableError) Is(target error) bool { return target == ErrUnstable }

// exact formats a value a user typed, exactly as Go would read it back.
func exact(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// short formats a computed value to 6 significant digits, so 0.45·100 reads
// as 45 rather than 45.00000000000001.
func short(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// checkServers validates a number of servers.
func checkServers(c int) error {
	if c < 1 || c > MaxServers {
		return &InputError{
			Name:    "servers c",
			Value:   strconv.Itoa(c),
			Allowed: "c must be a whole number from 1 to " + strconv.Itoa(MaxServers),
		}
	}
	return nil
}

// checkLoad validates an offered load a.
func checkLoad(a float64) error {
	if !finite(a) || a < 0 {
		return &InputError{
			Name:    "offered load a",
			Value:   exact(a),
			Allowed: "a must be a finite number ≥ 0 (a = λ·m, arrivals per cycle × mean service cycles)",
		}
	}
	return nil
}

// finite reports whether x is neither NaN nor ±Inf.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
