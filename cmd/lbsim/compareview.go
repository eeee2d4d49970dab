package main

import (
	"slices"

	"github.com/lbsim/lbsim/sim"
)

// clientMetrics are the comparison's rows of the client side (timeouts,
// retries, the budget) and goodput, which only it makes differ from
// completions: they are shown only when a run of the comparison had the
// client side act (sim.Summary.ClientActed), and errors only when a run
// had one, so a table of a plain comparison has no rows of zeros; cost
// shows only when a run had a server-cost. The JSON keeps every metric.
var clientMetrics = []string{"goodput", "retries", "timed_out", "gave_up_budget"}

// shown returns the metrics a comparison's table shows, in order.
func (cmp *comparison) shown() []metric {
	client, errs, fleet, cost := false, false, false, false
	cmp.eachSummary(func(s *sim.Summary) {
		client = client || s.ClientActed()
		errs = errs || s.Errors > 0
		fleet = fleet || s.Balancers > 1 || s.LoadInfo != sim.LoadExact.String()
		cost = cost || s.Cost > 0
	})
	return slices.DeleteFunc(slices.Clone(metrics), func(m metric) bool {
		return !client && slices.Contains(clientMetrics, m.Key) || !client && !errs && m.Key == "errors" ||
			!fleet && m.Key == "max_share" || !cost && m.Key == "cost"
	})
}

// eachSummary calls f with every run's summary.
func (cmp *comparison) eachSummary(f func(*sim.Summary)) {
	for i := range cmp.Variants {
		v := &cmp.Variants[i]
		if v.Summary != nil {
			f(v.Summary)
		}
		for r := range v.Runs {
			f(&v.Runs[r].Summary)
		}
	}
}
