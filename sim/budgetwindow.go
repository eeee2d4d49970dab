package sim

import (
	"errors"
	"fmt"
)

// This file keeps the retry budget's window from cycle 0. The budget
// counts the first attempts admitted in the last 1000 cycles, those
// before the client side came on included, so a run that gives a budget
// (at its start, or in a change scheduled before its first step) keeps
// the window from cycle 0 even while every client setting is off: its
// client state is made at cycle 0, unhashed (on false) until the client
// side comes on, so the run's hashes are those of a run that keeps none
// until then.

// givesBudget reports whether cfg or one of changes sets a retry budget.
func givesBudget(cfg *Config, changes []Change) bool {
	if cfg.RetryBudget > 0 {
		return true
	}
	for _, c := range changes {
		if c.Setting == SetRetryBudget && c.Value > 0 {
			return true
		}
	}
	return false
}

// keepBudgetWindow makes, at cycle 0, the balancer's client state for
// the budget's window alone, if it has none; cycle 0 is recorded at once
// when its step e has passed (done).
func (b *Balancer) keepBudgetWindow(done bool) {
	if b.cl != nil {
		return
	}
	c := b.newClient()
	c.baseAdm, c.recorded = 0, -1
	b.cl = c
	if done {
		c.recordWindow(b, 0)
	}
	b.watch()
}

// budgetWindowKept reports whether every balancer has kept the budget's
// window from cycle 0.
func (m *Model) budgetWindowKept() bool {
	for _, b := range m.bal {
		if b.cl == nil || b.cl.from > 0 {
			return false
		}
	}
	return true
}

// retryBudgetLate refuses changes, scheduled after the run's first step,
// that set a retry budget in a run that kept no window from cycle 0 (its
// start and its first schedule gave no budget): the first attempts
// admitted before were not counted.
func (m *Model) retryBudgetLate(changes []Change) error {
	if m.cycle == 0 || !givesBudget(&Config{}, changes) || m.budgetWindowKept() {
		return nil
	}
	for _, c := range changes {
		if c.Setting == SetRetryBudget && c.Value > 0 {
			return fmt.Errorf("change %v: %w", c, &lateBudgetError{FieldError{Field: "retry-budget", Value: Decimal(c.Value).String(),
				Allowed: "a change may set a retry budget only in a run that counts its first attempts from cycle 0: give --retry-budget at the start (or schedule the change before the run starts)"}})
		}
	}
	return nil
}

// ErrRetryBudgetLate is matched (errors.Is) by the refusal of a retry
// budget set by a change after the run's first step in a run that kept no
// window for it: running again with the change from the start sets it.
var ErrRetryBudgetLate = errors.New("a retry budget set after the run started without one")

// lateBudgetError is that refusal: a FieldError that is ErrRetryBudgetLate.
type lateBudgetError struct{ FieldError }

// Is reports whether target is ErrRetryBudgetLate.
func (e *lateBudgetError) Is(target error) bool { return target == ErrRetryBudgetLate }

// Unwrap gives the FieldError.
func (e *lateBudgetError) Unwrap() error { return &e.FieldError }
