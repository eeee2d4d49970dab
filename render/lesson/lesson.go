// Package lesson holds the view's ready scenarios for a class: each a name
// (for the page's ?lesson=NAME and the desktop's --lesson NAME), a title, a
// caption that says what to watch, the settings that make it happen, and a
// check of what the caption claims, made on the run's summary (the same
// summary `lbsim run --json` prints; the lessons' tests run the CLI).
//
// A lesson is one entry of All. Its Query is written like the page's query
// string; the page's own parameters apply after it, so
// ?lesson=firewall&seed=9 is the firewall lesson with seed 9. A caption
// that compares (pooled against per-server queues, two policies) names
// the comparison in Versus, which the check runs too; or, to show both
// side by side, its Query opens the compare view (compare=LANE;LANE, as
// `lbsim compare --variant LANE`) and the check runs its lanes.
package lesson

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lbsim/lbsim/queueing"
	"github.com/lbsim/lbsim/sim"
)

// Lesson is one ready scenario.
type Lesson struct {
	Name    string   // lower-case, for ?lesson=NAME
	Title   string   // a few words, for the lessons menu
	Topic   Topic    // the lessons menu's group it is listed under
	Caption []string // what to watch, a short line each
	// Query is the lesson's settings as query parameters (named like the
	// `lbsim run` flags, plus the view's speed, pause-at, present, theory).
	Query string
	// Versus, when not empty, is a comparison the caption makes: parameters
	// that change the lesson's settings (say policy=least-connections),
	// for a second run of the same requests.
	Versus string
	// Measure names the figure that carries the caption's claim; the view
	// shows it for each lane, large, in the lane's title.
	Measure Measure
	// Check reports whether the run's summary (and, with Versus, the
	// comparison run's) shows what the caption claims. A lesson whose
	// Query has a compare parameter has no Versus: Check gets its first
	// two lanes' summaries.
	Check func(run, versus sim.Summary) error
	// CheckLanes, when not nil, is the check of a lesson in the compare
	// view with three lanes or more, in Check's place: it gets every
	// lane's summary, in the order of the compare parameter.
	CheckLanes func(lanes []sim.Summary) error
	// CheckPause, for a lesson whose Query has a pause-at, checks what the
	// caption says of the picture at that pause: it gets the summaries of
	// the run stopped there (the CLI with --cycles set to the pause, the
	// page's lanes paused at it), in the order of the compare parameter.
	CheckPause func(lanes []sim.Summary) error
}

// Topic is a group of the lessons menu: the menu shows one topic's
// lessons at a time, under a row of the topics (Topics), so it holds any
// number of lessons at a readable size.
type Topic uint8

// The topics, in the menu's order; TopicComparisons holds the ready-made
// comparisons. NoTopic is a lesson that names none: the lessons' tests
// refuse it.
const (
	NoTopic Topic = iota
	TopicScaling
	TopicTheory
	TopicRouting
	TopicFailures
	TopicComparisons
	topicEnd
)

// topicNames are the topics' names, as the menu's row shows them.
var topicNames = [topicEnd]string{"", "scaling", "theory", "routing", "failures", "comparisons"}

// Topics are the menu's topics, in its order.
func Topics() []Topic {
	ts := make([]Topic, 0, topicEnd-1)
	for t := TopicScaling; t < topicEnd; t++ {
		ts = append(ts, t)
	}
	return ts
}

// String is the topic's name.
func (t Topic) String() string {
	if t < topicEnd && t != NoTopic {
		return topicNames[t]
	}
	return "no topic"
}

// MaxPerTopic is the most lessons a topic holds: the menu lists a topic's
// lessons in one column at a projector's size.
const MaxPerTopic = 8

// Measure is a figure of a run's summary that a lesson's claim rests on.
type Measure uint8

// The measures a lesson can name.
const (
	NoMeasure     Measure = iota
	AvgWait               // the mean wait, in cycles
	P95Wait               // the 95th percentile of the wait, in cycles
	RejectedShare         // the share of the requests the firewall rejected
	ErrorShare            // the share of the admitted requests that ended in error
	Goodput               // requests completed per cycle
	FinalQueue            // the requests queued now
	ResponseP99           // the 99th percentile of a request's response (arrival to its last part done), in cycles
)

// Of writes measure m of summary s the way the view shows it: "p95 wait
// 1,100", "errors 9.8%", "goodput 0.0724/cycle"; "" for NoMeasure. The
// page's HUD writes the same quantities the same way.
func (m Measure) Of(s sim.Summary) string {
	pct := func(n, of int64) string { return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(max(of, 1))) }
	switch m {
	case AvgWait:
		if s.AvgWait < 100 { // three significant digits: 1.04, 23.5
			return "avg wait " + strconv.FormatFloat(s.AvgWait, 'g', 3, 64)
		}
		return "avg wait " + commas(int64(s.AvgWait+0.5))
	case P95Wait:
		return "p95 wait " + commas(s.WaitP95)
	case RejectedShare:
		return "rejected " + pct(s.Rejected, s.Generated)
	case ErrorShare:
		return "errors " + pct(s.Errors, s.Admitted)
	case Goodput: // three significant digits: 0.0724, 0.00333
		return "goodput " + strconv.FormatFloat(s.Goodput, 'g', 3, 64) + "/cycle"
	case FinalQueue:
		return "queue " + commas(s.FinalQueue)
	case ResponseP99:
		return "p99 response " + commas(s.ResponseP99)
	}
	return ""
}

// commas writes n with thousands separators.
func commas(n int64) string {
	str := fmt.Sprint(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	for i := len(str) - 3; i > 0; i -= 3 {
		str = str[:i] + "," + str[i:]
	}
	return str
}

// All are the lessons, in the order of the menu (moreLessons,
// scalingLessons and tailLessons last).
var All = append([]Lesson{
	{
		Name:  "scaling-band",
		Topic: TopicScaling,
		Title: "the scaling band: why U = 80, D = 50 mean long waits",
		Caption: []string{
			"The pool grows when the queue passes U·S (solid line) and shrinks below D·S (dashed line).",
			"With U = 80 and D = 50 the queue is held at 50–80 requests per server, so each request",
			"waits behind 50–80 others per server: about 3,000 cycles (avg wait in the HUD), all run long.",
		},
		Query:   "seed=1&speed=3000",
		Measure: AvgWait,
		Check: func(s, _ sim.Summary) error {
			if s.AvgWait < 2_000 || s.AvgWait > 4_500 {
				return fmt.Errorf("average wait %.0f cycles, the caption says about 3,000", s.AvgWait)
			}
			if s.ScaleUps < 20 || s.ScaleDowns < 20 {
				return fmt.Errorf("%d scale-ups and %d scale-downs: the pool should follow the wave", s.ScaleUps, s.ScaleDowns)
			}
			return nil
		},
	},
	{
		Name:  "firewall",
		Topic: TopicFailures,
		Title: "the firewall's cost: half the traffic blocked",
		Caption: []string{
			"The firewall blocks 0.0.0.0/1: half of all addresses, and nothing else.",
			"Watch the gate's rejected counter (yellow) and its list of ranges: about half of the requests",
			"bounce off the gate (yellow squares flying back), and only the other half reach the queue.",
		},
		Query:   "seed=3&block=0.0.0.0/1&speed=20",
		Measure: RejectedShare,
		Check: func(s, _ sim.Summary) error {
			share := float64(s.Rejected) / float64(max(s.Generated, 1))
			if share < 0.47 || share > 0.53 {
				return fmt.Errorf("%.1f%% rejected, the caption says about half", 100*share)
			}
			return nil
		},
	},
	{
		Name:  "server-fails",
		Topic: TopicFailures,
		Title: "a server fails and its request is re-queued",
		Caption: []string{
			"Ten servers, no autoscaling. Server 3 fails at cycle 300 (dark red, crossed): the request",
			"it was serving goes back to the head of the queue (re-queued) and is served by another;",
			"the other nine carry the load until it comes back at 900. It pauses at cycle 301: Space runs on.",
		},
		Query:   "seed=5&servers=10&min-servers=10&max-servers=10&initial-per-server=2&wave=false&rate=0.2&task-min=30&task-max=60&fault=down:3@300&fault=up:3@900&cycles=2000&speed=20&pause-at=301",
		Measure: AvgWait,
		Check: func(s, _ sim.Summary) error {
			if s.Down != 1 || s.Up != 1 || s.Requeued != 1 || s.FaultsSkipped != 0 {
				return fmt.Errorf("down %d, up %d, requeued %d, skipped %d: want one failure whose request is re-queued, and the return",
					s.Down, s.Up, s.Requeued, s.FaultsSkipped)
			}
			return nil
		},
		CheckPause: func(s []sim.Summary) error {
			if s[0].Down != 1 || s[0].Up != 0 || s[0].Requeued != 1 {
				return fmt.Errorf("at the pause: down %d, up %d, requeued %d: want server 3 down and its request re-queued", s[0].Down, s[0].Up, s[0].Requeued)
			}
			return nil
		},
	},
	{
		Name:  "erlang",
		Topic: TopicTheory,
		Title: "a fixed pool against Erlang C (M/M/c)",
		Caption: []string{
			"A fixed pool of 10, Poisson arrivals of 0.4 a cycle, geometric task times of mean 20:",
			"the load is ρ = 0.8. The theory panel sets Erlang C's prediction beside the measured",
			"values: the measured wait settles near the predicted Wq (about 4 cycles) as the run goes on.",
		},
		Query:   "seed=42&servers=10&min-servers=10&max-servers=10&wave=false&service=geometric&mean-service=20&rate=0.4&block=none&scale-down=0&initial-per-server=0&cycles=200000&speed=3000&theory=1",
		Measure: AvgWait,
		Check: func(s, _ sim.Summary) error {
			th, err := queueing.MMC{Servers: 10, Lambda: 0.4, MeanService: 20}.Metrics()
			if err != nil {
				return err
			}
			if th.Wq < 3.5 || th.Wq > 4.5 || s.AvgWait < th.Wq*0.85 || s.AvgWait > th.Wq*1.15 {
				return fmt.Errorf("average wait %.2f cycles, Erlang C predicts %.2f (the caption says about 4)", s.AvgWait, th.Wq)
			}
			return nil
		},
	},
	{
		Name:  "overload",
		Topic: TopicScaling,
		Title: "overload: a pool capped below the traffic",
		Caption: []string{
			"Arrivals of 1 a cycle with tasks of 45 cycles on average need about 45 servers,",
			"but the pool is capped at 20 and starts there (the max line, servers chart): it cannot",
			"grow, and the queue grows without bound — the waits with it.",
		},
		Query:   "seed=2&wave=false&rate=1&max-servers=20&cycles=20000&speed=600",
		Measure: FinalQueue,
		Check: func(s, _ sim.Summary) error {
			if s.ServersPeak != 20 || s.ServersMin != 20 || s.FinalQueue < 8_000 {
				return fmt.Errorf("pool %d to %d, final queue %d: want the pool at its max of 20 throughout and a queue in the thousands",
					s.ServersMin, s.ServersPeak, s.FinalQueue)
			}
			return nil
		},
	},
	{
		Name:  "queues",
		Topic: TopicRouting,
		Title: "pooled vs per-server queues",
		Caption: []string{
			"Three equal servers, each with its own queue; requests are routed at random when they arrive,",
			"so one may wait behind a long line while another server idles: p95 wait about 550 cycles.",
			"The same requests in one pooled queue (the lower lane) wait about a third as long: p95 about 170.",
		},
		Query: "compare=per-server:queues=per-server;pooled:queues=pooled" +
			"&seed=4&servers=3&min-servers=3&max-servers=3&wave=false&rate=0.06&initial-per-server=0&cycles=50000&queues=per-server&policy=random&speed=3000",
		Measure: P95Wait,
		Check: func(run, pooled sim.Summary) error {
			if run.WaitP95 < 450 || run.WaitP95 > 650 || pooled.WaitP95 < 140 || pooled.WaitP95 > 200 || run.WaitP95 < 2*pooled.WaitP95 {
				return fmt.Errorf("p95 wait %d per-server, %d pooled: the caption says about 550 and about 170", run.WaitP95, pooled.WaitP95)
			}
			return nil
		},
	},
	{
		Name:  "speeds",
		Topic: TopicRouting,
		Title: "policies over servers of unequal speed",
		Caption: []string{
			"Servers of speeds 2, 1 and 1, each with its own queue. Round-robin gives each a third of the work:",
			"the slow ones get more than they can do and their queue bars grow; the fast one keeps up.",
			"p95 wait about 7,000 cycles. With least-connections (the lower lane) about 100.",
		},
		Query: "compare=round-robin:policy=round-robin;least-connections:policy=least-connections" +
			"&seed=1&servers=3&min-servers=3&max-servers=3&wave=false&rate=0.08&initial-per-server=0&cycles=100000&queues=per-server&policy=round-robin&speeds=2,1,1&speed=3000",
		Measure: P95Wait,
		Check: func(rr, lc sim.Summary) error {
			if rr.WaitP95 < 6_000 || rr.WaitP95 > 8_000 || lc.WaitP95 < 80 || lc.WaitP95 > 130 {
				return fmt.Errorf("p95 wait %d with round-robin, %d with least-connections: the caption says about 7,000 and about 100", rr.WaitP95, lc.WaitP95)
			}
			return nil
		},
	},
	{
		Name:  "fast-failing",
		Topic: TopicFailures,
		Title: "a fast-failing server attracts traffic",
		Caption: []string{
			"Ten servers, each with its own queue. At cycle 1,000 server 3 starts failing: every request",
			"it takes ends in error one cycle later. Round-robin still sends it a tenth: about 10% errors.",
			"Least-connections sees server 3 always empty and sends it most: about 60% errors, waits near 0.",
			"It pauses at cycle 10,000: compare server 3's share of requests (yellow %) in each lane.",
		},
		Query: "compare=round-robin:policy=round-robin;least-connections:policy=least-connections" +
			"&seed=1&servers=10&min-servers=10&max-servers=10&wave=false&rate=0.4&service=geometric&mean-service=20" +
			"&block=none&initial-per-server=0&cycles=20000&queues=per-server&fault=fail:3@1000&speed=600&pause-at=10000",
		Measure: ErrorShare,
		Check:   func(rr, lc sim.Summary) error { return fastFailing(rr, lc) },
		// The lanes' error shares in their titles at the pause.
		CheckPause: func(s []sim.Summary) error { return fastFailing(s[0], s[1]) },
	},
	{
		Name:  "heavy-tails",
		Topic: TopicRouting,
		Title: "heavy tails: round-robin against least-work",
		Caption: []string{
			"Lognormal request times with mean 20 and cv 3: most are short, a few hundreds of cycles long",
			"(a long request's box is longer). Round-robin queues short requests behind long ones: p95 wait",
			"about 1,100 cycles. Least-work sends each to the least remaining work: p95 about 40.",
		},
		Query: "compare=round-robin:policy=round-robin;least-work:policy=least-work" +
			"&seed=1&servers=10&min-servers=10&max-servers=10&wave=false&rate=0.4&service=lognormal&service-cv=3&mean-service=20" +
			"&block=none&initial-per-server=0&cycles=50000&queues=per-server&speed=3000",
		Measure: P95Wait,
		Check: func(rr, lw sim.Summary) error {
			if rr.WaitP95 < 900 || rr.WaitP95 > 1_300 || lw.WaitP95 < 30 || lw.WaitP95 > 60 {
				return fmt.Errorf("p95 wait %d with round-robin, %d with least-work: the caption says about 1,100 and about 40", rr.WaitP95, lw.WaitP95)
			}
			return nil
		},
	},
	{
		Name:  "retry-storm",
		Topic: TopicFailures,
		Title: "a retry storm: timeouts and retries after a spike, with and without a budget",
		Caption: []string{
			"Ten servers at 80% load; clients give up on an attempt after 1,000 cycles and retry up to 3 times.",
			"Arrivals jump to 0.15 a cycle from 20,000 to 25,000: attempts time out and come back as retries.",
			"It pauses at cycle 50,000: without a budget the retries keep the servers overloaded, goodput so",
			"far about 0.037 a cycle of the 0.08 arriving, falling to 0.024 by the end; with a budget: 0.064.",
		},
		Query: "compare=no-budget:retry-budget=0;budget-0.1:retry-budget=0.1" +
			"&seed=1&servers=10&min-servers=10&max-servers=10&wave=false&rate=0.08&service=geometric&mean-service=100" +
			"&block=none&initial-per-server=0&cycles=80000&timeout=1000&retries=3&set=20000:rate=0.15&set=25000:rate=0.08&speed=3000&pause-at=50000",
		Measure: Goodput,
		Check: func(none, budget sim.Summary) error {
			// Goodput over the whole run, and the queue at its end: the
			// lane without a budget is still overloaded, the other has
			// drained.
			if none.Goodput < 0.019 || none.Goodput > 0.029 || none.FinalQueue < 150 ||
				budget.Goodput < 0.067 || budget.Goodput > 0.077 || budget.FinalQueue > 100 || budget.Retries*10 > none.Retries {
				return fmt.Errorf("goodput %.4f without a budget (queue %d at the end, %d retries), %.4f with one (queue %d, %d retries): "+
					"the caption says about 0.024 at the end, never recovering, and recovering with a budget",
					none.Goodput, none.FinalQueue, none.Retries, budget.Goodput, budget.FinalQueue, budget.Retries)
			}
			return nil
		},
		// The lanes' goodput so far in their titles at the pause.
		CheckPause: func(s []sim.Summary) error {
			none, budget := s[0], s[1]
			if none.Goodput < 0.033 || none.Goodput > 0.041 || none.FinalQueue < 200 ||
				budget.Goodput < 0.060 || budget.Goodput > 0.068 || budget.Retries*10 > none.Retries {
				return fmt.Errorf("at the pause goodput %.4f without a budget (queue %d, %d retries), %.4f with one (%d retries): "+
					"the caption says about 0.037, overloaded, and about 0.064", none.Goodput, none.FinalQueue, none.Retries, budget.Goodput, budget.Retries)
			}
			return nil
		},
	},
	{
		Name:  "herding",
		Topic: TopicRouting,
		Title: "herding: twenty balancers that count only their own requests",
		Caption: []string{
			"Twenty balancers (the gates) share ten servers, each with its own queue. Least-connections with",
			"exact counts (top) sends each request to an emptiest server: p95 wait about 40 cycles. With local",
			"counts a balancer sees only its own requests: to most, every server holds 0, and the tie goes to",
			"the lowest ids: the first servers queue, the last idle. p95 about 420; p2c with local counts: 165.",
		},
		Query: "compare=lc-exact:policy=least-connections;lc-local:policy=least-connections,load-info=local;p2c-local:policy=p2c,load-info=local" +
			"&seed=1&servers=10&min-servers=10&max-servers=10&wave=false&rate=0.4&service=geometric&mean-service=20" +
			"&block=none&initial-per-server=0&cycles=20000&queues=per-server&policy=least-connections&balancers=20&speed=600",
		Measure: P95Wait,
		CheckLanes: func(s []sim.Summary) error {
			exact, lc, p2c := s[0], s[1], s[2]
			if exact.WaitP95 < 25 || exact.WaitP95 > 60 || lc.WaitP95 < 350 || lc.WaitP95 > 500 || p2c.WaitP95 < 120 || p2c.WaitP95 > 220 ||
				lc.WaitP95 < 2*p2c.WaitP95 || exact.Balancers != 20 || lc.LoadInfo != "local" {
				return fmt.Errorf("p95 wait %d with exact counts, %d with least-connections on local counts, %d with p2c on local counts (%d balancers, %s): "+
					"the caption says about 40, 420 and 165", exact.WaitP95, lc.WaitP95, p2c.WaitP95, exact.Balancers, lc.LoadInfo)
			}
			return nil
		},
	},
}, slices.Concat(moreLessons, scalingLessons, tailLessons, overloadLessons)...)

// fastFailing checks the fast-failing lesson's claim on the round-robin
// and least-connections lanes: about 10% and about 60% of the admitted
// requests ending in error, least-connections waiting less.
func fastFailing(rr, lc sim.Summary) error {
	share := func(s sim.Summary) float64 { return float64(s.Errors) / float64(max(s.Admitted, 1)) }
	if share(rr) < 0.08 || share(rr) > 0.12 || share(lc) < 0.55 || share(lc) > 0.7 || lc.WaitP95 >= rr.WaitP95 {
		return fmt.Errorf("%.1f%% errors with round-robin, %.1f%% with least-connections (p95 waits %d, %d): the caption says about 10%% and about 60%%, least-connections waiting less",
			100*share(rr), 100*share(lc), rr.WaitP95, lc.WaitP95)
	}
	return nil
}

// Find returns the lesson named name.
func Find(name string) (Lesson, error) {
	for _, l := range All {
		if l.Name == name {
			return l, nil
		}
	}
	return Lesson{}, fmt.Errorf("no lesson %q: the lessons are %s", name, strings.Join(Names(), ", "))
}

// Names lists the lessons' names in menu order.
func Names() []string {
	ns := make([]string, len(All))
	for i, l := range All {
		ns[i] = l.Name
	}
	return ns
}

// Params splits the lesson's Query into name, value pairs, in order.
func (l Lesson) Params() [][2]string { return split(l.Query) }

// VersusParams are the comparison run's parameters: the lesson's, then
// Versus's (which override them).
func (l Lesson) VersusParams() [][2]string { return append(split(l.Query), split(l.Versus)...) }

func split(query string) [][2]string {
	var ps [][2]string
	for _, kv := range strings.Split(query, "&") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			ps = append(ps, [2]string{k, v})
		}
	}
	return ps
}

// Comparison is a ready-made comparison for the page's compare view: a
// name, a title, and the page's query (compare=VARIANT;VARIANT… and the
// base run's parameters). The README links each one.
type Comparison struct {
	Name  string
	Title string
	// Caption is what to watch, a short line each, shown like a lesson's;
	// it claims only what Check checks.
	Caption []string
	Query   string
	// Check reports whether the lanes' summaries (in the order of the
	// compare parameter, each run to the end) show what the title and the
	// README claim.
	Check func(lanes []sim.Summary) error
}

// lower checks that the p95 waits rise from lane to lane in the order of
// the lanes named by index.
func lower(sums []sim.Summary, order ...int) error {
	for k := 1; k < len(order); k++ {
		a, b := sums[order[k-1]], sums[order[k]]
		if a.WaitP95 >= b.WaitP95 {
			return fmt.Errorf("lane %d's p95 wait %d is not below lane %d's %d", order[k-1], a.WaitP95, order[k], b.WaitP95)
		}
	}
	return nil
}

// Comparisons are the ready-made comparisons, each the page's version of
// a `lbsim compare` command in the README.
var Comparisons = []Comparison{
	{
		Name:  "pooled-vs-split",
		Title: "one central queue against split queues (random, round-robin), ten servers at ρ ≈ 0.84",
		Caption: []string{
			"The same requests, three ways to queue them for ten servers. One central queue hands each request",
			"to the first free server; split queues can leave a request waiting behind a long one while another",
			"server idles. Watch the p95 waits: the central queue's is lowest, split at random highest.",
		},
		Query: "compare=central:queues=pooled;split-random:queues=per-server,policy=random;split-rr:queues=per-server,policy=round-robin" +
			"&seed=1&servers=10&min-servers=10&max-servers=10&wave=false&rate=0.2&initial-per-server=0&speed=3000",
		// The central queue waits least, split random most.
		Check: func(s []sim.Summary) error { return lower(s, 0, 2, 1) },
	},
	{
		Name:  "unequal-speeds",
		Title: "round-robin, p2c and least-connections over servers of speeds 2, 1, 1",
		Caption: []string{
			"Servers of speeds 2, 1 and 1, each with its own queue. Round-robin gives each a third of the work,",
			"more than the slow ones can do: their bars grow. p2c and least-connections look at the queues and",
			"send more to the fast server: both p95 waits stay below round-robin's.",
		},
		Query: "compare=round-robin:policy=round-robin;p2c:policy=p2c;least-connections:policy=least-connections" +
			"&seed=1&servers=3&min-servers=3&max-servers=3&wave=false&rate=0.08&initial-per-server=0&queues=per-server&speeds=2,1,1&speed=3000",
		// Round-robin ignores the speeds and waits longest.
		Check: func(s []sim.Summary) error { return cmpErr(lower(s, 2, 0), lower(s, 1, 0)) },
	},
	{
		Name:  "swrr-weights",
		Title: "swrr with weights matched (3,1,1) and mismatched (1,1,3) to speeds 3, 1, 1",
		Caption: []string{
			"Smooth weighted round-robin sends each server its weight's share of the requests. Matched to the",
			"speeds (3, 1, 1) the fast server gets the most; mismatched (1, 1, 3) a slow one does. Weights",
			"must stand for capacity: the matched lane's p95 wait is the lower.",
		},
		Query: "compare=matched:policy=swrr,weights=3,1,1;mismatched:policy=swrr,weights=1,1,3" +
			"&seed=1&servers=3&min-servers=3&max-servers=3&wave=false&rate=0.09&initial-per-server=0&queues=per-server&speeds=3,1,1&speed=3000",
		// Weights must stand for capacity.
		Check: func(s []sim.Summary) error { return lower(s, 0, 1) },
	},
}

// Params splits c's Query into name, value pairs, in order.
func (c Comparison) Params() [][2]string { return split(c.Query) }

// cmpErr returns the first error that is not nil.
func cmpErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// FindComparison returns the ready-made comparison named name.
func FindComparison(name string) (Comparison, error) {
	var names []string
	for _, c := range Comparisons {
		if c.Name == name {
			return c, nil
		}
		names = append(names, c.Name)
	}
	return Comparison{}, fmt.Errorf("no comparison %q: the comparisons are %s", name, strings.Join(names, ", "))
}
