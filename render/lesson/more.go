package lesson

import (
	"fmt"

	"github.com/lbsim/lbsim/queueing"
	"github.com/lbsim/lbsim/sim"
)

// hockeyRates are the hockey-stick lesson's arrival rates, one a lane:
// ten servers of mean 20 cycles at ρ = 0.5, 0.8, 0.9 and 0.95.
var hockeyRates = []float64{0.25, 0.4, 0.45, 0.475}

// hockeySaid are the hockey-stick caption's predictions, one a lane.
var hockeySaid = []float64{0.14, 4.1, 13.4, 33}

// erlangWq is Erlang C's mean wait for ten servers of mean 20 at rate.
func erlangWq(rate float64) (float64, error) {
	th, err := queueing.MMC{Servers: 10, Lambda: rate, MeanService: 20}.Metrics()
	return th.Wq, err
}

// moreLessons are the later lessons: Little's law, the hockey stick,
// ejection, a hash ring, stale boards and join-idle-queue; All lists them
// after the first ones.
var moreLessons = []Lesson{
	{
		Name:  "littles-law",
		Topic: TopicTheory,
		Title: "Little's law: how many wait = arrival rate × wait",
		Caption: []string{
			"Little's law: in a steady queue the mean number waiting is the arrival rate times the mean wait.",
			"Ten servers, 0.4 arrivals a cycle, geometric times of mean 20 (ρ = 0.8): the HUD's avg wait settles",
			"near 4 cycles, and the theory panel's measured Lq (requests queued) near 0.4 × 4 = 1.6.",
		},
		Query: "seed=42&servers=10&min-servers=10&max-servers=10&wave=false&service=geometric&mean-service=20&rate=0.4" +
			"&block=none&scale-down=0&initial-per-server=0&cycles=60000&speed=3000&theory=1",
		Measure: AvgWait,
		Check: func(s, _ sim.Summary) error {
			th, err := queueing.MMC{Servers: 10, Lambda: 0.4, MeanService: 20}.Metrics()
			if err != nil {
				return err
			}
			if l := meanQueued(s); s.AvgWait < 3.4 || s.AvgWait > 4.6 || l < 1.3 || l > 1.9 || th.Lq < 0.99*0.4*th.Wq || th.Lq > 1.01*0.4*th.Wq {
				return fmt.Errorf("average wait %.2f, %.2f queued on average (Erlang C: Wq %.2f, Lq %.2f): the caption says about 4 and 1.6", s.AvgWait, l, th.Wq, th.Lq)
			}
			return nil
		},
	},
	{
		Name:  "hockey-stick",
		Topic: TopicTheory,
		Title: "the hockey stick: waits against load, on Erlang C's curve",
		Caption: []string{
			"Ten servers, Poisson arrivals, geometric times of mean 20, at four loads: ρ = 0.5, 0.8, 0.9, 0.95.",
			"Erlang C predicts average waits of 0.14, 4.1, 13.4 and 33 cycles: flat, then a hockey stick.",
			"Each lane's avg wait (large, in its title) settles near its prediction as the run goes on.",
		},
		Query: "compare=ρ 0.5:rate=0.25;ρ 0.8:rate=0.4;ρ 0.9:rate=0.45;ρ 0.95:rate=0.475" +
			"&seed=42&servers=10&min-servers=10&max-servers=10&wave=false&service=geometric&mean-service=20" +
			"&block=none&scale-down=0&initial-per-server=0&cycles=100000&speed=3000",
		Measure: AvgWait,
		CheckLanes: func(s []sim.Summary) error {
			for i, r := range hockeyRates {
				wq, err := erlangWq(r)
				if err != nil {
					return err
				}
				if said := hockeySaid[i]; wq < said*0.95 || wq > said*1.05 {
					return fmt.Errorf("lane %d: the caption says Erlang C predicts %g, it predicts %.2f", i, said, wq)
				}
				if d := s[i].AvgWait - wq; d > max(0.15*wq, 0.1) || d < -max(0.15*wq, 0.1) {
					return fmt.Errorf("lane %d (rate %g): average wait %.2f, Erlang C predicts %.2f", i, r, s[i].AvgWait, wq)
				}
			}
			return nil
		},
	},
	{
		Name:  "ejection",
		Topic: TopicFailures,
		Title: "ejection rescues least-connections from a failing server",
		Caption: []string{
			"Ten servers, each with its own queue; from cycle 1,000 server 3 fails every request one cycle in.",
			"Least-connections sees it always empty and sends it most: about 60% errors (top lane).",
			"Ejecting a server after 3 errors in a row (lower lane) takes it out: errors about 0.2%.",
		},
		Query: "compare=no-ejection:policy=least-connections;eject-after-3:policy=least-connections,eject-after=3" +
			"&seed=1&servers=10&min-servers=10&max-servers=10&wave=false&rate=0.4&service=geometric&mean-service=20" +
			"&block=none&initial-per-server=0&cycles=20000&queues=per-server&policy=least-connections&fault=fail:3@1000&speed=600",
		Measure: ErrorShare,
		Check: func(none, ej sim.Summary) error {
			if errorShare(none) < 0.5 || errorShare(none) > 0.75 || errorShare(ej) > 0.005 || ej.Ejections == 0 {
				return fmt.Errorf("%.1f%% errors without ejection, %.2f%% with it (%d ejections): the caption says about 60%% and about 0.2%%",
					100*errorShare(none), 100*errorShare(ej), ej.Ejections)
			}
			return nil
		},
	},
	{
		Name:  "hash-ring",
		Topic: TopicRouting,
		Title: "a server leaves a hash ring: only its sources move",
		Caption: []string{
			"Consistent hashing: each source address is a point on a ring holding 64 points per server, and",
			"goes to the owner of the next point. Server 3 leaves at cycle 1,000 (down): only its sources move,",
			"each to its next point's owner, so they spread over the other nine: each takes about 11% (yellow %).",
		},
		Query: "seed=1&servers=10&min-servers=10&max-servers=10&wave=false&rate=0.3&service=geometric&mean-service=20" +
			"&block=none&initial-per-server=0&cycles=20000&queues=per-server&policy=hash&fault=down:3@1000&speed=600",
		Measure: NoMeasure, // the claim is in the shares
		Check: func(s, _ sim.Summary) error {
			if s.Down != 1 || s.Up != 0 || s.MaxShare > 0.14 || s.MaxShare < 0.1 {
				return fmt.Errorf("down %d, up %d, the largest share of one server %.3f: want server 3 gone and the rest near 11%% each", s.Down, s.Up, s.MaxShare)
			}
			return nil
		},
	},
	{
		Name:  "stale-boards",
		Topic: TopicRouting,
		Title: "stale information: balancers reading an old board",
		Caption: []string{
			"Ten balancers share ten servers. Exact counts (top): least-connections waits little, p95 about 40.",
			"A board refreshed every 200 cycles: between refreshes all ten send to the server that looked",
			"emptiest, a herd: p95 about 450. p2c on the same board draws two at random: about 170.",
		},
		Query: "compare=lc-exact:policy=least-connections;lc-board:policy=least-connections,load-info=periodic:200;p2c-board:policy=p2c,load-info=periodic:200" +
			"&seed=1&servers=10&min-servers=10&max-servers=10&wave=false&rate=0.4&service=geometric&mean-service=20" +
			"&block=none&initial-per-server=0&cycles=20000&queues=per-server&policy=least-connections&balancers=10&speed=600",
		Measure: P95Wait,
		CheckLanes: func(s []sim.Summary) error {
			exact, lc, p2c := s[0], s[1], s[2]
			if exact.WaitP95 < 25 || exact.WaitP95 > 60 || lc.WaitP95 < 350 || lc.WaitP95 > 550 || p2c.WaitP95 < 130 || p2c.WaitP95 > 210 {
				return fmt.Errorf("p95 wait %d exact, %d least-connections on the board, %d p2c on the board: the caption says about 40, 450 and 170",
					exact.WaitP95, lc.WaitP95, p2c.WaitP95)
			}
			return nil
		},
	},
	{
		Name:  "join-idle-queue",
		Topic: TopicRouting,
		Title: "join-idle-queue: idle servers report in, no loads read",
		Caption: []string{
			"Twenty servers at ρ = 0.85, each with its own queue. Random routing: p95 wait about 340 (top).",
			"Join-idle-queue reads no loads: an idle server joins the balancer's list and takes the next request.",
			"Its p95 is about 55, near least-connections' 33 (lowest lane), which reads every server's load.",
		},
		Query: "compare=random:policy=random;jiq:policy=jiq;least-connections:policy=least-connections" +
			"&seed=1&servers=20&min-servers=20&max-servers=20&wave=false&rate=0.85&service=geometric&mean-service=20" +
			"&block=none&initial-per-server=0&cycles=20000&queues=per-server&policy=random&speed=600",
		Measure: P95Wait,
		CheckLanes: func(s []sim.Summary) error {
			rnd, jiq, lc := s[0], s[1], s[2]
			if rnd.WaitP95 < 280 || rnd.WaitP95 > 400 || jiq.WaitP95 < 40 || jiq.WaitP95 > 70 || lc.WaitP95 < 25 || lc.WaitP95 > 45 {
				return fmt.Errorf("p95 wait %d random, %d join-idle-queue, %d least-connections: the caption says about 340, 55 and 33",
					rnd.WaitP95, jiq.WaitP95, lc.WaitP95)
			}
			return nil
		},
	},
}

// meanQueued is the mean number of requests waiting over the run: the
// waits' sum is the area under the queue's length.
func meanQueued(s sim.Summary) float64 { return float64(s.TotalWait) / float64(max(s.Cycles, 1)) }

// nearest is the index of the value of vs nearest v by ratio.
func nearest(v float64, vs ...float64) int {
	best := 0
	for i, x := range vs {
		if max(v/x, x/v) < max(v/vs[best], vs[best]/v) {
			best = i
		}
	}
	return best
}

// moreQuizzes are moreLessons' questions.
var moreQuizzes = map[string]*Quiz{
	"littles-law": {
		Question: "0.4 arrive a cycle, each waits about 4 cycles. How many wait at once?",
		Answers:  []string{"about 10 (4 ÷ 0.4)", "about 1.6 (0.4 × 4)", "about 4, one per cycle of wait"},
		Right:    1,
		Holds:    func(s []sim.Summary) int { return nearest(meanQueued(s[0]), 10, 1.6, 4) },
		Why:      "each request adds 1 to the queue for each cycle it waits: λ·Wq requests on average.",
		Try:      "service=constant",
		TryText:  "tasks of exactly 20 cycles",
		Look:     "Wq falls to about 2.5 and Lq with it, to about 1.0: still 0.4 × Wq.",
		TryCheck: func(s []sim.Summary) error {
			if w, l := s[0].AvgWait, meanQueued(s[0]); w < 2 || w > 3 || l < 0.8 || l > 1.2 {
				return fmt.Errorf("average wait %.2f, %.2f queued on average with constant tasks: want about 2.5 and 1.0", w, l)
			}
			return nil
		},
	},
	"hockey-stick": {
		Question: "From ρ = 0.8 to 0.95 the load grows by a fifth. The average wait?",
		Answers:  []string{"about a fifth longer", "about twice as long", "about seven times as long"},
		Right:    2,
		Holds: func(s []sim.Summary) int {
			switch r := s[3].AvgWait / max(s[1].AvgWait, 1e-9); {
			case r < 1.5:
				return 0
			case r < 3.5:
				return 1
			}
			return 2
		},
		Why:     "waits grow as 1/(1 − ρ): near full load a little more traffic costs much more waiting.",
		Try:     "service=constant",
		TryText: "tasks of exactly 20 cycles instead of geometric ones",
		Look:    "every wait about halves: less variable work queues less, but the stick keeps its shape.",
		TryCheck: func(s []sim.Summary) error {
			for i, r := range hockeyRates[1:] {
				wq, err := erlangWq(r)
				if err != nil {
					return err
				}
				if w := s[i+1].AvgWait; w < 0.35*wq || w > 0.7*wq {
					return fmt.Errorf("lane %d: average wait %.2f with constant tasks, Erlang C's %.2f for geometric: want about half", i+1, w, wq)
				}
			}
			return nil
		},
	},
	"hash-ring": {
		Question: "Server 3 leaves the hash ring. Where do its sources' requests go?",
		Answers:  []string{"all to the next server on the ring", "spread over the other nine", "nowhere: they wait for it"},
		Right:    1,
		Holds: func(s []sim.Summary) int {
			switch {
			case s[0].MaxShare > 0.16:
				return 0
			case s[0].FinalQueue > 1_000:
				return 2
			}
			return 1
		},
		Why:     "each server owns 64 points round the ring: its sources' next points belong to all the others.",
		Try:     "fault=up:3@8000",
		TryText: "bring server 3 back at cycle 8,000",
		Look:    "its points are still on the ring: its own sources come back to it; no share passes 13%.",
		TryCheck: func(s []sim.Summary) error {
			if s[0].Down != 1 || s[0].Up != 1 || s[0].MaxShare > 0.13 {
				return fmt.Errorf("down %d, up %d, the largest share %.3f: want server 3 back and no share above 13%%", s[0].Down, s[0].Up, s[0].MaxShare)
			}
			return nil
		},
	},
	"ejection": {
		Question: "Least-connections ejecting a server after 3 errors: its errors?",
		Answers:  []string{"still about 60%", "about 10%, as round-robin's", "almost none"},
		Right:    2,
		Holds: func(s []sim.Summary) int {
			switch e := errorShare(s[1]); {
			case e > 0.3:
				return 0
			case e > 0.02:
				return 1
			}
			return 2
		},
		Why:     "three errors in a row eject server 3 for 1,000 cycles, doubled each time it fails again.",
		Try:     "health-interval=50",
		TryText: "health checks: probe every server every 50 cycles",
		Look:    "probes find server 3 failing and eject it in the top lane too: errors there fall below 1%.",
		TryCheck: func(s []sim.Summary) error {
			if errorShare(s[0]) > 0.01 || errorShare(s[1]) > 0.01 {
				return fmt.Errorf("errors %.2f%% and %.2f%% with health checks: want under 1%% in both lanes", 100*errorShare(s[0]), 100*errorShare(s[1]))
			}
			return nil
		},
	},
	"stale-boards": {
		Question: "Ten balancers read a board refreshed every 200 cycles. Worst p95?",
		Answers:  []string{"least-connections, exact counts", "least-connections on the board", "p2c on the board"},
		Right:    1, Holds: highestP95,
		Why:     "between refreshes all pick the same 'emptiest' server; p2c's random pair spreads them.",
		Try:     "balancers=2",
		TryText: "two balancers instead of ten",
		Look:    "fewer balancers herd less: least-connections on the board falls to about 120, near p2c's.",
		TryCheck: func(s []sim.Summary) error {
			if s[1].WaitP95 > 180 || s[1].WaitP95 < 80 {
				return fmt.Errorf("p95 wait %d for least-connections on the board with two balancers: want about 120", s[1].WaitP95)
			}
			return nil
		},
	},
	"join-idle-queue": {
		Question: "Join-idle-queue reads no loads at all. Its p95 wait is nearer…",
		Answers:  []string{"random's (top lane)", "least-connections' (lowest lane)"},
		Right:    1,
		Holds: func(s []sim.Summary) int {
			if s[1].WaitP95-s[2].WaitP95 < s[0].WaitP95-s[1].WaitP95 {
				return 1
			}
			return 0
		},
		Why:     "at ρ = 0.85 some server is nearly always idle, and an idle server is the best pick there is.",
		Try:     "rate=0.95",
		TryText: "a heavier load, 0.95 a cycle (ρ = 0.95)",
		Look:    "idle servers grow rare: join-idle-queue's p95 rises to about twice least-connections'.",
		TryCheck: func(s []sim.Summary) error {
			if s[1].WaitP95 < 2*s[2].WaitP95 || s[1].WaitP95 > s[0].WaitP95/2 {
				return fmt.Errorf("p95 waits %d random, %d join-idle-queue, %d least-connections: want jiq's at least twice lc's, under half random's",
					s[0].WaitP95, s[1].WaitP95, s[2].WaitP95)
			}
			return nil
		},
	},
}
