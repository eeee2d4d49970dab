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

// overloadMetrics are the rows of overload control (and goodput): shown
// only when a run of the comparison shed, limited or throttled, or had a
// concurrency limit.
var overloadMetrics = []string{"goodput", "shed", "limited", "throttled"}

// limitMetrics are the rows of a concurrency limit's final value (the
// pool's, or the servers' mean and range): shown only when a run of the
// comparison had a limit (its limit_final is 1 at least; 0 when off).
var limitMetrics = []string{"limit_final", "limit_final_min", "limit_final_max"}

// shown returns the metrics a comparison's table shows, in order.
func (cmp *comparison) shown() []metric {
	client, over, limit, errs, fleet, cost := false, false, false, false, false, false
	cmp.eachSummary(func(s *sim.Summary) {
		client = client || s.ClientActed()
		limit = limit || s.LimitFinal > 0
		over = over || s.Shed+s.Limited+s.Throttled > 0 || limit
		errs = errs || s.Errors > 0
		fleet = fleet || s.Balancers > 1 || s.LoadInfo != sim.LoadExact.String()
		cost = cost || s.Cost > 0
	})
	return slices.DeleteFunc(slices.Clone(metrics), func(m metric) bool {
		inClient, inOver := slices.Contains(clientMetrics, m.Key), slices.Contains(overloadMetrics, m.Key)
		return (inClient || inOver) && !(inClient && client || inOver && over) || !client && !errs && m.Key == "errors" ||
			!fleet && m.Key == "max_share" || !cost && m.Key == "cost" || !limit && slices.Contains(limitMetrics, m.Key)
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
