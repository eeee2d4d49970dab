package sim

import (
	"errors"
	"strings"
	"testing"
)

// TestBudgetWindowFromCycleZero: one server; #1…#4 (time 1) arrive at
// cycle 1 and complete; the server fails from cycle 10 (fail-time 1) and
// #5, #6 arrive then. With retries 1 and budget 0.5 in force at 10, #5's
// error (at 11) is granted a retry (0 granted < 0.5 × 6 admitted in cycles
// 0…11) and so is #6's (1 < 3): the budget counts the first attempts
// admitted before the client side came on. Counted only from the cycle
// the client side came on (the model's rule before it kept the window),
// #6 would find 1 granted, not below 0.5 × 2, and give up
// (gave_up_budget 1). The budget is set from the start, by a change
// scheduled before the run, or the client side comes on by a timeout
// first; turned off and on again, it keeps its window.
func TestBudgetWindowFromCycleZero(t *testing.T) {
	half := int64(DecimalScale / 2)
	set := func(cycle int64, name, value string) Change {
		c, err := NewChange(cycle, name, value)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cases := []struct {
		name    string
		budget  int64 // at the start
		timeout int64 // at the start
		changes []Change
	}{
		{"budget from the start, retries by a change", half, 0,
			[]Change{set(10, "retries", "1")}},
		{"budget and retries by changes", 0, 0,
			[]Change{set(10, "retries", "1"), set(10, "retry-budget", "0.5")}},
		{"budget by a change before retries", 0, 0,
			[]Change{set(5, "retries", "1"), set(6, "retry-budget", "0.5"), set(7, "retries", "0"), set(10, "retries", "1")}},
		{"client side on by a timeout change first", half, 0,
			[]Change{set(8, "timeout", "50"), set(10, "retries", "1")}},
		{"client side on from the start, off and on again", half, 50,
			[]Change{set(3, "timeout", "0"), set(10, "retries", "1")}},
	}
	for _, c := range cases {
		var rows []TraceRow
		for i := range 4 {
			rows = append(rows, TraceRow{Cycle: 1, Src: uint32(i + 1), Time: 1})
		}
		rows = append(rows, TraceRow{Cycle: 10, Src: 5, Time: 5}, TraceRow{Cycle: 10, Src: 6, Time: 5})
		cfg := grayTrace(1, 30, rows...)
		cfg.FailTime, cfg.RetryBudget, cfg.Timeout = 1, Decimal(c.budget), c.timeout
		cfg.Blocked = nil
		m, err := New(cfg)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := m.Schedule(append([]Change{fault(10, "fail", "1")}, c.changes...)...); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for m.Step() {
		}
		if s := m.Summary(); s.GaveUpBudget != 0 || s.Retries != 2 || !s.Consistent {
			t.Errorf("%s: gave_up_budget %d retries %d consistent %v, want 0 2 true",
				c.name, s.GaveUpBudget, s.Retries, s.Consistent)
		}
	}
}

// TestRetryBudgetSetLate: a change scheduled after the run's first step
// may set a retry budget only where the window has been kept from cycle 0
// (a budget given at the start); elsewhere it is refused, naming the
// setting and what to do (ErrRetryBudgetLate, a *FieldError: the page
// runs again from the start instead), and nothing is scheduled.
func TestRetryBudgetSetLate(t *testing.T) {
	for _, start := range []int64{0, DecimalScale / 10} {
		cfg := grayTrace(1, 100, steady(50, 1)...)
		cfg.Blocked, cfg.Retries, cfg.RetryBudget = nil, 1, Decimal(start)
		if start == 0 {
			cfg.Retries = 0
		}
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		m.Step()
		c1, _ := NewChange(20, "retries", "1")
		c2, _ := NewChange(20, "retry-budget", "0.5")
		err = m.Schedule(c1, c2)
		switch {
		case start > 0 && err != nil:
			t.Errorf("budget at the start: a later budget change was refused: %v", err)
		case start == 0 && (err == nil || !strings.Contains(err.Error(), "retry-budget") || !strings.Contains(err.Error(), "cycle 0")):
			t.Errorf("no budget at the start: a budget set after the first step gave %v, want a refusal naming retry-budget", err)
		case start == 0 && (!errors.Is(err, ErrRetryBudgetLate) || !errors.As(err, new(*FieldError))):
			t.Errorf("the refusal %v is not ErrRetryBudgetLate and a *FieldError", err)
		case start == 0 && len(m.Pending()) != 0:
			t.Errorf("a refused schedule left %d changes pending", len(m.Pending()))
		}
	}
}
