package sim

import (
	"math/big"
	"slices"
)

// ServerState is what a live server is doing.
type ServerState uint8

// The states of a live server.
const (
	Idle     ServerState = iota // waiting for work (or, ejected or warming, for none)
	Busy                        // serving a request
	Retiring                    // serving its last request, then leaving
	Failed                      // down (fault injection): not live until it comes back
)

// String returns "idle", "busy" or "retiring".
func (s ServerState) String() string {
	switch s {
	case Busy:
		return "busy"
	case Retiring:
		return "retiring"
	case Failed:
		return "down"
	}
	return "idle"
}

// ServerView is a read-only picture of one server, live or down.
type ServerView struct {
	ID    int
	State ServerState
	Speed Speed // 100 = speed 1
	// Queued is the length of the server's own queue (per-server mode;
	// always 0 when pooled).
	Queued int
	// Request is the request in service when State is Busy or Retiring;
	// it was dispatched at cycle Start and completes at cycle Done.
	Request     Request
	Start, Done int64
	// Gray is the server's gray state, and Slow its slow factor in
	// hundredths while Gray is Slow. A hanging server's attempt has no
	// Done: it is far beyond any run.
	Gray Gray
	Slow Speed
	// Ejected: health checks or outlier ejection took the server out of
	// the candidates; it finishes what it holds and takes nothing new.
	// Warming: added by scaling, it takes work from cycle Ready on.
	// Abandoned: the work in service is a timed-out attempt's, which
	// nobody waits for.
	Ejected, Warming, Abandoned bool
	Ready                       int64
}

// Remaining returns the cycles left of the request in service after cycle
// now, or 0 when the server is idle.
func (v ServerView) Remaining(now int64) int64 {
	if v.State == Idle || v.State == Failed {
		return 0
	}
	return max(v.Done-now, 0)
}

// Pool holds the server counts at the end of a cycle. A down server keeps
// its slot: it is live (counted in the cost and against the most servers)
// but not active. Active = Live − Retiring − Down; Idle = Live − Busy −
// Down (retiring servers are always busy).
type Pool struct {
	Live, Active, Busy, Idle, Retiring int
	Down                               int // failed servers, live but not active
	// Ejected and Warming servers are live but not active (health
	// checks and warm-up); with health checks on, a down server is active
	// until it is ejected.
	Ejected, Warming int
}

// Totals are the counters accumulated since cycle 0.
type Totals struct {
	InitialQueue  int64 // requests admitted at cycle 0
	Generated     int64
	Rejected      int64
	Discarded     int64
	Admitted      int64
	Completed     int64
	Dispatched    int64
	TotalWait     int64 // sum of the waits of dispatched requests, in cycles
	ServiceCycles int64 // sum of the service cycles given at dispatch (speed applied)
	ServiceCount  int64 // the dispatches ServiceCycles counts: to healthy or slow servers
	Errors        int64 // attempts that ended in error (failing servers)
	// The client side (all 0 with it off): retries that arrived, and those
	// a queue cap discarded; requests that ended failed (last attempt in
	// error, no retry left), timed out (likewise), or refused a retry by
	// the budget; attempts abandoned while queued and in service;
	// cycles servers spent on abandoned work (ended); servers replaced;
	// ejections.
	Retries, RetriesDiscarded         int64
	Failed, TimedOut, GaveUpBudget    int64
	TimedOutQueued, TimedOutInService int64
	WastedCycles, Replaced, Ejections int64
	// Overload control (all 0 with it off): attempts shed by their queue,
	// refused by a concurrency limit, and throttled by their client; each
	// is also one of Errors.
	Shed, Limited, Throttled int64
	// Levels at the end of the last cycle: servers busy with abandoned
	// work, and requests waiting to retry.
	Abandoned, Waiting int64
	TotalResponse      int64 // sum of the response times of completed requests, in cycles
	// Fan-out and hedging (all 0 with them off): the parts beyond each
	// admitted request's first (parts = admitted + ExtraParts), the parts
	// completed before the last of their request (attempts_completed =
	// completed + PartsDone), hedges sent, parts a hedge completed, hedges
	// the budget or a full queue refused, and attempts cancelled. Fanout
	// is K (0: fan-out and hedging off) and InFlightRequests, with them
	// on, the requests
	// neither completed nor ended at the end of the last cycle (a level:
	// in_flight counts requests, not attempts).
	ExtraParts, PartsDone           int64
	Hedges, HedgesWon, HedgesDenied int64
	Cancelled                       int64
	Fanout                          int
	InFlightRequests                int64
	ServerCycles                    int64 // live servers summed over the ends of cycles 0, 1, … (the pool's cost)
	BusyCycles                      int64 // busy servers summed likewise
	ScaleUps                        int64
	ScaleDowns                      int64
	Requeued                        int64 // requests taken back from failed servers
	Downs                           int64 // servers that failed
	Ups                             int64 // failed servers that came back
	FaultsSkipped                   int64 // faults that named a server not live, or already down / not down
	PeakQueue                       int64 // largest end-of-cycle queue length
	ServersMin                      int   // smallest end-of-cycle live count
	ServersPeak                     int   // largest end-of-cycle live count
}

// CycleStats is one timeline row: levels at the end of the cycle, and the
// event counts of that cycle alone.
type CycleStats struct {
	Cycle      int64
	Queue      int
	Servers    int // live, retiring included
	Busy       int
	Retiring   int
	Generated  int
	Rejected   int
	Discarded  int
	Completed  int
	Dispatched int
	Scale      int // servers added − removed (the queue rule: 1, -1 or 0)
	Errors     int // attempts that ended in error
	TimedOut   int // attempts abandoned by their client (timeout)
	Retries    int // retries arriving
	// Overload control: attempts shed, refused by a limit and throttled
	// (each also one of Errors); the timeline shows them only with
	// Columns.Overload.
	Shed, Limited, Throttled int
	// Fan-out and hedging: hedges sent and attempts cancelled in the
	// cycle (the timeline's last two columns while fan-out or hedging is
	// on, Columns.Fanout).
	Hedges, Cancelled int
}

// TimelineHeader is the header row of the timeline CSV.
const TimelineHeader = "cycle,queue,servers,busy,retiring,generated,rejected,discarded,completed,dispatched,scale,errors,timed_out,retries"

// AppendCSV appends the row's CSV line (without newline) to b.
func (c CycleStats) AppendCSV(b []byte) []byte {
	b = appendInt(b, c.Cycle)
	for _, v := range [...]int{c.Queue, c.Servers, c.Busy, c.Retiring, c.Generated, c.Rejected, c.Discarded, c.Completed, c.Dispatched, c.Scale, c.Errors, c.TimedOut, c.Retries} {
		b = append(b, ',')
		b = appendInt(b, int64(v))
	}
	return b
}

// Columns are the timeline's optional column groups: each is present when
// its feature is on at cycle 0 or in a scheduled change (TimelineColumns).
type Columns struct {
	// Fanout adds hedges and cancelled (fan-out or hedging on).
	Fanout bool
	// Overload adds shed, limited and throttled (overloadCountersOn).
	Overload bool
}

// The timeline's optional groups, in their order after retries.
const (
	fanoutGroup   = ",hedges,cancelled"
	overloadGroup = ",shed,limited,throttled"
)

// TimelineColumns returns the timeline's column groups for a run of cfg
// with the changes scheduled.
func TimelineColumns(cfg *Config, changes []Change) Columns {
	states := configStates(cfg, changes)
	return Columns{
		Fanout:   slices.ContainsFunc(states, fanoutCountersOn),
		Overload: slices.ContainsFunc(states, overloadCountersOn),
	}
}

// fanoutCountersOn reports whether fan-out (or hedging) is on in c: the
// one test of the timeline's fan-out columns.
func fanoutCountersOn(c *Config) bool {
	return c.Fanout > 1 || c.HedgeAfter > 0
}

// overloadCountersOn reports whether a mechanism that counts shed,
// limited or throttled attempts is on in c: the one test of the timeline's
// overload columns.
func overloadCountersOn(c *Config) bool {
	return c.CodelTarget > 0 || c.Throttle > 0 || c.ConcurrencyLimit != 0
}

// Header returns the timeline CSV's header row with these groups.
func (cols Columns) Header() string {
	h := TimelineHeader
	if cols.Fanout {
		h += fanoutGroup
	}
	if cols.Overload {
		h += overloadGroup
	}
	return h
}

// AppendRow appends the row's CSV line (without newline) to b, with the
// groups of cols after AppendCSV's columns.
func (c CycleStats) AppendRow(b []byte, cols Columns) []byte {
	b = c.AppendCSV(b)
	if cols.Fanout {
		for _, v := range [...]int{c.Hedges, c.Cancelled} {
			b = append(b, ',')
			b = appendInt(b, int64(v))
		}
	}
	if cols.Overload {
		for _, v := range [...]int{c.Shed, c.Limited, c.Throttled} {
			b = append(b, ',')
			b = appendInt(b, int64(v))
		}
	}
	return b
}

func appendInt(b []byte, v int64) []byte {
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return append(b, d[i:]...)
}

// Summary is the end-of-run report; its JSON form is the --json output of
// docs/cli.md, keys in the documented order.
type Summary struct {
	Seed         uint64 `json:"seed"`
	Cycles       int64  `json:"cycles"`
	InitialQueue int64  `json:"initial_queue"`
	FinalQueue   int64  `json:"final_queue"`
	Generated    int64  `json:"generated"`
	Rejected     int64  `json:"rejected"`
	Discarded    int64  `json:"discarded"`
	Admitted     int64  `json:"admitted"`
	Completed    int64  `json:"completed"`
	Errors       int64  `json:"errors"`
	// The client side: attempts = admitted + retries; the requests that
	// ended failed, timed out or refused by the retry budget, and those
	// still in flight; the attempts abandoned queued and in service;
	// servers busy with abandoned work at the end, and the cycles spent
	// on abandoned work; servers replaced; ejections; goodput = completed
	// ÷ cycles.
	Attempts           int64 `json:"attempts"`
	Retries            int64 `json:"retries"`
	RetriesDiscarded   int64 `json:"retries_discarded"`
	Failed             int64 `json:"failed"`
	TimedOut           int64 `json:"timed_out"`
	GaveUpBudget       int64 `json:"gave_up_budget"`
	InFlight           int64 `json:"in_flight"`
	TimedOutQueued     int64 `json:"timed_out_queued"`
	TimedOutInService  int64 `json:"timed_out_in_service"`
	AbandonedInService int64 `json:"abandoned_in_service"`
	WastedCycles       int64 `json:"wasted_cycles"`
	Replaced           int64 `json:"replaced"`
	Ejections          int64 `json:"ejections"`
	// Overload control: attempts shed by their queue, refused by a
	// concurrency limit, throttled by their client (each one of Errors;
	// 0 with it off).
	Shed      int64 `json:"shed"`
	Limited   int64 `json:"limited"`
	Throttled int64 `json:"throttled"`
	// The concurrency limit's at the end: the pool's, or the mean, lowest
	// and highest of the live servers' (all 0 with no limit).
	LimitFinal    float64 `json:"limit_final"`
	LimitFinalMin int64   `json:"limit_final_min"`
	LimitFinalMax int64   `json:"limit_final_max"`
	// LimitSum and LimitCount are the limits LimitFinal is the mean of,
	// summed, and how many (not printed; snapshots store them).
	LimitSum   int64   `json:"-"`
	LimitCount int64   `json:"-"`
	Goodput    float64 `json:"goodput"`
	// InService counts the attempts in service whose client still waits
	// (ServersBusy also counts the servers busy with abandoned work).
	InService  int64   `json:"in_service"`
	Dispatched int64   `json:"dispatched"`
	TotalWait  int64   `json:"total_wait"`
	AvgWait    float64 `json:"avg_wait"`
	// ServiceCycles sums the service cycles given at dispatch (speed
	// applied); it is not printed (AvgService, their mean per dispatch,
	// is).
	ServiceCycles int64 `json:"-"`
	// ServiceCount is the dispatches ServiceCycles counts: to healthy or
	// slow servers (not printed).
	ServiceCount    int64   `json:"-"`
	AvgService      float64 `json:"avg_service"`
	PeakQueue       int64   `json:"peak_queue"`
	ScaleUps        int64   `json:"scale_ups"`
	ScaleDowns      int64   `json:"scale_downs"`
	ServersFinal    int64   `json:"servers_final"`
	ServersBusy     int64   `json:"servers_busy"`
	ServersIdle     int64   `json:"servers_idle"`
	ServersRetiring int64   `json:"servers_retiring"`
	ServersMin      int64   `json:"servers_min"`
	ServersPeak     int64   `json:"servers_peak"`
	Requeued        int64   `json:"requeued"`
	Down            int64   `json:"down"`
	Up              int64   `json:"up"`
	FaultsSkipped   int64   `json:"faults_skipped"`
	ServersDown     int64   `json:"servers_down"`
	ServersEjected  int64   `json:"servers_ejected"`
	ServersWarming  int64   `json:"servers_warming"`
	// ServerQueueMax is the longest single server queue at the end and
	// Lobby the lobby's length (per-server mode; 0 when pooled).
	ServerQueueMax int64 `json:"server_queue_max"`
	Lobby          int64 `json:"lobby"`
	// The latency percentiles (nearest rank, in cycles): waits of
	// dispatched requests, response times (completion − arrival) of
	// completed ones. AvgResponse is their mean.
	WaitP50     int64   `json:"wait_p50"`
	WaitP90     int64   `json:"wait_p90"`
	WaitP95     int64   `json:"wait_p95"`
	WaitP99     int64   `json:"wait_p99"`
	WaitMax     int64   `json:"wait_max"`
	AvgResponse float64 `json:"avg_response"`
	// TotalResponse is the sum of the completed requests' response
	// times; it is not printed (AvgResponse is).
	TotalResponse int64 `json:"-"`
	ResponseP50   int64 `json:"response_p50"`
	ResponseP90   int64 `json:"response_p90"`
	ResponseP95   int64 `json:"response_p95"`
	ResponseP99   int64 `json:"response_p99"`
	ResponseMax   int64 `json:"response_max"`
	// ServerCycles is the pool's cost: the live servers summed over the
	// ends of cycles 0 … cycles (the timeline's servers column);
	// BusyServerCycles sums the busy ones, and Utilisation is their
	// ratio (0 with no server-cycles).
	ServerCycles     int64   `json:"server_cycles"`
	BusyServerCycles int64   `json:"busy_server_cycles"`
	Utilisation      float64 `json:"utilisation"`
	// Cost is ServerCycles × the price of a server-cycle (server-cost),
	// 0 when it has none (SetCost).
	Cost float64 `json:"cost"`
	// The fleet: its balancers (1 for one), what they know of the loads
	// (LoadInfo), each one's picks and the largest share of them naming
	// one server, and the largest such share of the fleet (per-server;
	// no balancer routes at arrival in the pooled mode, which has none).
	Balancers  int          `json:"balancers"`
	LoadInfo   string       `json:"load_info"`
	Fleet      []FleetShare `json:"fleet"`
	MaxShare   float64      `json:"max_share"`
	Consistent bool         `json:"consistent"`

	// Fan-out and hedging (always present; 0, and fanout 1, with them
	// off): K; the parts (admitted × K); hedges sent; parts a hedge
	// completed; hedges refused (the budget, a full queue); attempts
	// cancelled (a sibling completed or its request ended); attempts
	// completed with their client waiting (a request's parts each count).
	Fanout            int64 `json:"fanout"`
	Parts             int64 `json:"parts"`
	Hedges            int64 `json:"hedges"`
	HedgesWon         int64 `json:"hedges_won"`
	HedgesDenied      int64 `json:"hedges_denied"`
	Cancelled         int64 `json:"cancelled"`
	AttemptsCompleted int64 `json:"attempts_completed"`

	// P and S are the two balancers of a switch (nil otherwise).
	P *Summary `json:"P,omitempty"`
	S *Summary `json:"S,omitempty"`
}

func (t *Totals) add(u Totals) {
	t.InitialQueue += u.InitialQueue
	t.Generated += u.Generated
	t.Rejected += u.Rejected
	t.Discarded += u.Discarded
	t.Admitted += u.Admitted
	t.Completed += u.Completed
	t.Dispatched += u.Dispatched
	t.TotalWait += u.TotalWait
	t.ServiceCycles += u.ServiceCycles
	t.ServiceCount += u.ServiceCount
	t.Errors += u.Errors
	t.Retries += u.Retries
	t.RetriesDiscarded += u.RetriesDiscarded
	t.Failed += u.Failed
	t.TimedOut += u.TimedOut
	t.GaveUpBudget += u.GaveUpBudget
	t.TimedOutQueued += u.TimedOutQueued
	t.TimedOutInService += u.TimedOutInService
	t.WastedCycles += u.WastedCycles
	t.Replaced += u.Replaced
	t.Ejections += u.Ejections
	t.Shed += u.Shed
	t.Limited += u.Limited
	t.Throttled += u.Throttled
	t.Abandoned += u.Abandoned
	t.Waiting += u.Waiting
	t.TotalResponse += u.TotalResponse
	t.ExtraParts += u.ExtraParts
	t.PartsDone += u.PartsDone
	t.Hedges += u.Hedges
	t.HedgesWon += u.HedgesWon
	t.HedgesDenied += u.HedgesDenied
	t.Cancelled += u.Cancelled
	t.Fanout = max(t.Fanout, u.Fanout)
	t.InFlightRequests += u.InFlightRequests
	t.ServerCycles += u.ServerCycles
	t.BusyCycles += u.BusyCycles
	t.ScaleUps += u.ScaleUps
	t.ScaleDowns += u.ScaleDowns
	t.Requeued += u.Requeued
	t.Downs += u.Downs
	t.Ups += u.Ups
	t.FaultsSkipped += u.FaultsSkipped
}

func (c *CycleStats) add(d *CycleStats) {
	c.Queue += d.Queue
	c.Servers += d.Servers
	c.Busy += d.Busy
	c.Retiring += d.Retiring
	c.Generated += d.Generated
	c.Rejected += d.Rejected
	c.Discarded += d.Discarded
	c.Completed += d.Completed
	c.Dispatched += d.Dispatched
	c.Scale += d.Scale
	c.Errors += d.Errors
	c.TimedOut += d.TimedOut
	c.Retries += d.Retries
	c.Shed += d.Shed
	c.Limited += d.Limited
	c.Throttled += d.Throttled
	c.Hedges += d.Hedges
	c.Cancelled += d.Cancelled
}

// summary builds the JSON summary from counters and end levels.
// ClientActed reports whether the client side or detection has acted: a
// retry granted or refused by the budget, a timeout, an ejection or a
// replacement. A run whose settings turned them off again still shows
// what they did.
func (t Totals) ClientActed() bool {
	return clientActed(t.Retries, t.GaveUpBudget, t.TimedOutQueued, t.TimedOutInService, t.Ejections, t.Replaced)
}

// ClientActed is Totals.ClientActed of the counts summed up.
func (s Summary) ClientActed() bool {
	return clientActed(s.Retries, s.GaveUpBudget, s.TimedOutQueued, s.TimedOutInService, s.Ejections, s.Replaced)
}

// clientActed is ClientActed, the one list of the counts it reads.
func clientActed(counts ...int64) bool {
	for _, n := range counts {
		if n > 0 {
			return true
		}
	}
	return false
}

func (t Totals) summary(seed uint64, cycle int64, p Pool, queue int64) Summary {
	s := Summary{
		Seed:               seed,
		Cycles:             cycle,
		InitialQueue:       t.InitialQueue,
		FinalQueue:         queue,
		Generated:          t.Generated,
		Rejected:           t.Rejected,
		Discarded:          t.Discarded,
		Admitted:           t.Admitted,
		Completed:          t.Completed,
		Errors:             t.Errors,
		Retries:            t.Retries,
		RetriesDiscarded:   t.RetriesDiscarded,
		Failed:             t.Failed,
		TimedOut:           t.TimedOut,
		GaveUpBudget:       t.GaveUpBudget,
		TimedOutQueued:     t.TimedOutQueued,
		TimedOutInService:  t.TimedOutInService,
		WastedCycles:       t.WastedCycles,
		Replaced:           t.Replaced,
		Ejections:          t.Ejections,
		Shed:               t.Shed,
		Limited:            t.Limited,
		Throttled:          t.Throttled,
		InService:          int64(p.Busy) - t.Abandoned,
		AbandonedInService: t.Abandoned,
		InFlight:           queue + int64(p.Busy) - t.Abandoned + t.Waiting,
		Dispatched:         t.Dispatched,
		TotalWait:          t.TotalWait,
		ServiceCycles:      t.ServiceCycles,
		ServiceCount:       t.ServiceCount,
		TotalResponse:      t.TotalResponse,
		ServerCycles:       t.ServerCycles,
		BusyServerCycles:   t.BusyCycles,
		PeakQueue:          t.PeakQueue,
		ScaleUps:           t.ScaleUps,
		ScaleDowns:         t.ScaleDowns,
		ServersFinal:       int64(p.Live),
		ServersBusy:        int64(p.Busy),
		ServersIdle:        int64(p.Idle),
		ServersRetiring:    int64(p.Retiring),
		ServersMin:         int64(t.ServersMin),
		ServersPeak:        int64(t.ServersPeak),
		Requeued:           t.Requeued,
		Down:               t.Downs,
		Up:                 t.Ups,
		FaultsSkipped:      t.FaultsSkipped,
		ServersDown:        int64(p.Down),
		ServersEjected:     int64(p.Ejected),
		ServersWarming:     int64(p.Warming),
		Fanout:             int64(max(t.Fanout, 1)),
		Parts:              t.Admitted + t.ExtraParts,
		Hedges:             t.Hedges,
		HedgesWon:          t.HedgesWon,
		HedgesDenied:       t.HedgesDenied,
		Cancelled:          t.Cancelled,
		AttemptsCompleted:  t.Completed + t.PartsDone,
	}
	if t.Fanout > 0 { // fan-out or hedging on (K = 1 hedged too)
		s.InFlight = t.InFlightRequests // requests; the queues and servers hold parts (a retry pending for a request that ended is not one)
	}
	s.Derive()
	return s
}

// Derive sets the fields that follow from the counts: Attempts, Goodput,
// AvgWait and AvgService (0 before the first dispatch), AvgResponse (0
// before the first completion), LimitFinal and Consistent (the accounting lines
// hold).
func (s *Summary) Derive() {
	s.Attempts = s.Parts + s.Retries + s.Hedges
	s.Goodput = 0
	if s.Cycles > 0 {
		s.Goodput = float64(s.Completed) / float64(s.Cycles)
	}
	s.AvgWait, s.AvgService, s.AvgResponse = 0, 0, 0
	if s.Dispatched > 0 {
		s.AvgWait = float64(s.TotalWait) / float64(s.Dispatched)
	}
	if s.ServiceCount > 0 {
		s.AvgService = float64(s.ServiceCycles) / float64(s.ServiceCount)
	}
	if s.Completed > 0 {
		s.AvgResponse = float64(s.TotalResponse) / float64(s.Completed)
	}
	s.Utilisation = 0
	if s.ServerCycles > 0 {
		s.Utilisation = float64(s.BusyServerCycles) / float64(s.ServerCycles)
	}
	s.deriveLimit()
	arrivals, requests, attempts := s.Books()
	s.Consistent = arrivals && requests && attempts
}

// SetCost sets Cost (and P's and S's in a switch) from the price of one
// server-cycle, exactly: server-cycles × c₆ ÷ 10⁶, rounded once to the
// nearest float64.
func (s *Summary) SetCost(c Decimal) {
	s.Cost = costOf(s.ServerCycles, c)
	for _, b := range []*Summary{s.P, s.S} {
		if b != nil {
			b.Cost = costOf(b.ServerCycles, c)
		}
	}
}

// costOf is server-cycles × c₆ ÷ 10⁶ in exact arithmetic, as a float64.
func costOf(serverCycles int64, c Decimal) float64 {
	if serverCycles == 0 || c == 0 {
		return 0
	}
	n := new(big.Int).Mul(big.NewInt(serverCycles), big.NewInt(int64(c)))
	f, _ := new(big.Rat).SetFrac(n, big.NewInt(DecimalScale)).Float64()
	return f
}

// Books reports whether the three accounting lines hold: generated =
// rejected + discarded + admitted; for requests, admitted = completed +
// failed + timed_out + gave_up_budget + in_flight; for attempts, parts =
// admitted × fanout, attempts = parts + retries + hedges, and parts +
// retries + hedges − retries_discarded = attempts_completed + cancelled +
// errors + timed_out_queued + timed_out_in_service + queued + in service.
// Consistent is all three. With the client side, fan-out and hedging
// off, failed = errors, in_flight = queued + in service, parts =
// admitted, attempts_completed = completed and the other counts are 0:
// both of the last two read admitted = completed + errors + queued + in
// service.
func (s *Summary) Books() (arrivals, requests, attempts bool) {
	return s.Generated == s.Rejected+s.Discarded+s.Admitted,
		s.Admitted == s.Completed+s.Failed+s.TimedOut+s.GaveUpBudget+s.InFlight,
		s.Parts == s.Admitted*max(s.Fanout, 1) && s.Attempts == s.Parts+s.Retries+s.Hedges &&
			s.Parts+s.Retries+s.Hedges-s.RetriesDiscarded == s.AttemptsCompleted+s.Cancelled+s.Errors+s.TimedOutQueued+s.TimedOutInService+s.FinalQueue+s.InService
}
