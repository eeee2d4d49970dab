package sim

import (
	"cmp"
	"fmt"
	"strings"

	"slices"
	"strconv"
)

// Config is everything that decides a run. Two runs with equal Configs (and
// equal changes, see Change) produce identical results on every platform.
type Config struct {
	Servers          int     // S0: servers created at cycle 0
	Cycles           int64   // N: the run stops after this cycle
	TaskMin, TaskMax int     // processing time range in cycles, uniform, inclusive
	Service          Service // processing-time distribution (shape): uniform over TaskMin..TaskMax (default), or see Service
	MeanService      int     // mean (geometric, lognormal, Pareto) or fixed (constant) processing time in cycles
	// ServiceCV is the lognormal shape's coefficient of variation
	// (0 < cv ≤ 10), ServiceShape the Pareto shape's α (1 < α ≤ 100)
	// and LongShare the bimodal shape's share of TaskMax requests
	// (0 ≤ p ≤ 1). ServiceCV and ServiceShape 0 stand for their
	// defaults (CV and Alpha).
	ServiceCV, ServiceShape, LongShare Decimal
	// ServerCost is C, the price of one server for one cycle (0 … 10⁶,
	// in millionths): the summary's cost is server-cycles × C.
	ServerCost Decimal
	// ServiceMax cuts lognormal and Pareto draws (0: 1000 × MeanService,
	// at most MaxTaskTime); see Cap.
	ServiceMax int
	// ServiceValues are the empirical shape's times, drawn uniformly.
	ServiceValues    []int32
	Seed             uint64 // seeds the run's only random generator
	InitialPerServer int    // initial queue: Servers × InitialPerServer requests at cycle 0

	Rate          Rate  // mean arrivals per cycle (Poisson)
	Wave          bool  // let the mean follow a slow sine wave around Rate
	WaveAmplitude int   // the wave's half-height in percent of Rate (0..100)
	WavePeriod    int64 // the wave's period in cycles
	StreamShare   int   // percent of generated requests of type S (streaming)

	Blocked []Range // source ranges the firewall rejects

	ScaleUp   Factor // U: add a server when queue > U × active servers
	ScaleDown Factor // D: remove one when queue < D × active servers
	Cooldown  int64  // K: scaling is evaluated only when the cycle is a multiple of K
	// Autoscaler is the rule that sizes the pool (QueueRule: ScaleUp,
	// ScaleDown, Cooldown; TargetTracking: the rest). ScaleTarget 0 and
	// ScalePeriod 0 stand for their defaults (0.7 for utilization, 15);
	// ScaleTolerance and ScaleDownWindow hold their value plus one, 0
	// standing for the defaults 0.1 and 300.
	Autoscaler      Autoscaler
	ScaleMetric     ScaleMetric
	ScaleTarget     Decimal
	ScalePeriod     int64
	ScaleTolerance  Decimal
	ScaleDownWindow int64
	MinServers      int // the pool never shrinks below this many active servers
	MaxServers      int // the pool never grows beyond this many live servers
	QueueCap        int // 0 = unbounded; otherwise arrivals finding the queue full are discarded
	// Discipline is which queued attempt a queue hands out next.
	Discipline Discipline
	// CodelInterval is N, the cycles adaptive-lifo looks back over for an
	// empty queue (1 … MaxCodelInterval; 0 means DefaultCodelInterval).
	CodelInterval int64
	// CodelTarget is M, shedding's limit while a queue is standing: at
	// step d a queue about to hand out an attempt first sheds those that
	// have waited in it longer than M cycles (standing) or N (otherwise);
	// 0 = off, else 1 … CodelInterval's N.
	CodelTarget int64
	// Throttle is K, client-side adaptive throttling's multiplier (Google
	// SRE book), in hundredths: 0 = off, else 1 … 10 with two decimals.
	Throttle Hundredths
	// ConcurrencyLimit caps each server's attempts in flight (per-server
	// queues) or the pool's (pooled): 0 none, L ≥ 1 a fixed limit of L,
	// LimitAIMD an adaptive one (conclimit.go).
	ConcurrencyLimit int
	// LimitInitial, LimitMin and LimitMax are the adaptive limit's start
	// and bounds (0 means DefaultLimitInitial, DefaultLimitMin,
	// DefaultLimitMax); LimitLatency is R, the latency above which an
	// ending lowers it (0: never).
	LimitInitial, LimitMin, LimitMax int
	LimitLatency                     int64
	Policy                           Policy // dispatch (pooled) or routing (per-server) policy

	// Queues is where admitted requests wait: one central queue (Pooled)
	// or one queue per server, routed at arrival (PerServer).
	Queues QueueMode
	// Choices is how many candidates the p2c policy draws (d ≥ 1; 0
	// means DefaultChoices).
	Choices int
	// EwmaDecay is τ, the cycles over which the peak-ewma policy's cost
	// forgets a response (≥ 1; 0 means DefaultEwmaDecay).
	EwmaDecay int64
	// FailTime is how many cycles after its dispatch an attempt on a
	// failing server ends in error (1 … MaxTaskTime; 0 means 1).
	FailTime int64
	// Speeds are the servers' speeds: server i+1 has Speeds[i]; servers
	// beyond the list (autoscaling's too) have speed 1.
	Speeds []Speed
	// Weights are the server weights of swrr and least-connections: server
	// i+1 has Weights[i]; servers beyond the list (autoscaling's too)
	// weigh 1. A weight-0 server never gets work under those policies.
	Weights []int

	// Switch runs two balancers behind the firewall: P requests go to
	// one and S requests to the other, each with Servers servers at the
	// start and the same scaling settings and queue capacity.
	Switch bool

	// MTBF and MTTR turn on random faults: every active server fails with
	// mean time between failures MTBF cycles (0 = never) and comes back
	// after a repair time drawn uniformly from 1..2·MTTR−1 cycles (mean
	// MTTR). Faults draw from their own generator, so turning them on
	// leaves the request stream unchanged.
	MTBF, MTTR int64

	// The client side and detection (all 0 = off; see client.go and
	// detect.go). Timeout abandons an attempt not finished that many
	// cycles after it arrived. Retries is how many times a request is
	// tried again after an attempt ends in error, times out or is
	// discarded; retry k waits Backoff·2^(k−1) cycles (with Jitter, a
	// uniform draw from 0 to that, from the retry generator). RetryBudget
	// (a Decimal share, 0 < F ≤ 1) grants a retry only while the retries
	// granted in the last 1,000 cycles are fewer than F × the first
	// attempts admitted in them.
	Timeout     int64
	Retries     int
	Backoff     int64
	Jitter      bool
	RetryBudget Decimal
	// HealthInterval probes every live server at the multiples of it
	// (0: the balancer knows a server's state at once); HealthFall
	// failed probes in a row eject a server and HealthRise passes restore
	// it (0 stands for DefaultHealthFall and DefaultHealthRise).
	HealthInterval         int64
	HealthFall, HealthRise int
	// EjectAfter ejects a server after that many errors in a row (0 =
	// off) for EjectFor · 2^(k−1) cycles, k its ejections since its last
	// completion (EjectFor 0 stands for DefaultEjectFor).
	EjectAfter int
	EjectFor   int64
	// ProvisionDelay is how many cycles a server added by scaling warms
	// before it takes work; ReplaceAfter takes a server that has been
	// down or ejected that many cycles out of the pool (0 = never).
	ProvisionDelay int64
	ReplaceAfter   int64

	// Balancers is the fleet's size K (per-server queues; 0 stands for
	// 1): each attempt is handed to one of K balancers, drawn from the
	// fleet generator, which routes it with what it knows of the servers'
	// loads (LoadInfo). See fleet.go.
	Balancers int
	// LoadInfo is what a balancer of a fleet reads as a server's load:
	// exact (0), the requests it sent there that the server still holds
	// (LoadLocal), or a board refreshed every T cycles plus what it sent
	// since (T > 0).
	LoadInfo LoadInfo

	// Fanout is K, the parts of every admitted request (per-server
	// queues; 0 stands for 1): each part is routed as an attempt of its
	// own, to a server holding no other part of the request where one is
	// left, and the request completes when its last part does. See
	// fanout.go.
	Fanout int

	// HedgeAfter is D, hedging's delay (0 = off; per-server queues): a
	// part first sent at s₀ and not completed gets its h-th hedge at step
	// b of s₀ + h·D, h = 1 … HedgeMax (0 stands for 1), a new attempt on a
	// server holding no live attempt of its request, whose time is drawn
	// from the hedge generator. HedgeBudget F (millionths, 0 = none) lets
	// a hedge go only while the hedges of the last 1000 cycles are fewer
	// than F × the parts first sent in them. See hedge.go.
	HedgeAfter  int64
	HedgeMax    int
	HedgeBudget Decimal

	// Trace, when non-nil, replaces the generator: its rows are the only
	// requests (cycle 0 rows form the initial queue).
	Trace []TraceRow
}

// WaveStep is how many cycles the wave's rate stays constant before it is
// evaluated again. It keeps the per-cycle cost of the wave to a comparison.
const WaveStep = 100

// Limits of every setting. They keep runs finite and memory bounded.
const (
	MaxServersLimit           = 100_000
	MaxCycles                 = 1_000_000_000
	MaxTaskTime               = 1_000_000
	MaxInitialRequests        = 10_000_000
	MaxRate            Rate   = 10_000 * RateScale
	MaxFactor          Factor = 1_000_000 * FactorScale
	MaxQueueCap               = 100_000_000
	MaxRetries                = 10
	MaxBackoff                = 1 << 40 // Backoff · 2^(Retries−1) is at most this
	DefaultHealthFall         = 3
	DefaultHealthRise         = 2
	MaxHealthCount            = 1000
	DefaultEjectFor           = 1000
	MaxEjectAfter             = 1_000_000
	MaxEjections              = 20 // the doubling of an ejection's time stops here
	MaxBalancers              = 256
	MaxLoadPeriod             = 1_000_000
	MaxFanout                 = 64
	MaxHedges                 = 4
)

// DefaultBlocked is the firewall's default block list: address blocks that
// never appear as sources on the public internet (RFC 6890 "this network",
// private networks, loopback, and the reserved 240.0.0.0/4). The generator
// draws source addresses uniformly, so about 7.4% of requests are rejected.
func DefaultBlocked() []Range {
	var rs []Range
	for _, s := range []string{"0.0.0.0/8", "10.0.0.0/8", "127.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "240.0.0.0/4"} {
		r, _ := ParseRange(s)
		rs = append(rs, r)
	}
	return rs
}

// DefaultConfig returns the documented defaults, with Seed 0.
func DefaultConfig() Config {
	return Config{
		Servers:          20,
		Cycles:           100_000,
		TaskMin:          10,
		TaskMax:          80,
		InitialPerServer: 100,
		Rate:             450_000,
		Wave:             true,
		WaveAmplitude:    60,
		WavePeriod:       20_000,
		StreamShare:      20,
		Blocked:          DefaultBlocked(),
		ScaleUp:          80 * FactorScale,
		ScaleDown:        50 * FactorScale,
		Cooldown:         10,
		MinServers:       1,
		MaxServers:       100,
		Policy:           DefaultPolicy(Pooled),
		Choices:          DefaultChoices,
		EwmaDecay:        DefaultEwmaDecay,
		LongShare:        DefaultLongShare,
		HealthFall:       DefaultHealthFall,
		HealthRise:       DefaultHealthRise,
		EjectFor:         DefaultEjectFor,
	}
}

// FieldError reports a setting that is out of range. Field is the setting's
// name as the command line spells its flag, without dashes.
type FieldError struct {
	Field   string
	Value   string
	Allowed string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s = %s is not allowed: %s", e.Field, e.Value, e.Allowed)
}

func intErr(field string, v int64, allowed string, args ...any) error {
	return &FieldError{Field: field, Value: strconv.FormatInt(v, 10), Allowed: fmt.Sprintf(allowed, args...)}
}

// Validate checks every field against the model's rules (the package
// documentation) and the limits above, and returns the first problem found
// as a *FieldError: each setting's own range (its row of the settings
// table, the one check a flag, a --set, a query parameter and a snapshot
// share), then the rules across several settings (crossCheck).
func (c *Config) Validate() error {
	for i := range settingRows {
		if err := settingRows[i].checkConfig(c); err != nil {
			return err
		}
	}
	if err := c.crossCheck(true); err != nil {
		return err
	}
	return c.validateInputs()
}

// crossCheck checks the rules that tie several settings together, at the
// start of a run (start) or after a batch of changes: the only checks of
// settings not written in their rows.
func (c *Config) crossCheck(start bool) error {
	switch {
	case start && int64(c.InitialPerServer)*int64(c.Servers) > MaxInitialRequests:
		return intErr("initial-per-server", int64(c.InitialPerServer), "must be ≥ 0 with servers × initial-per-server ≤ %d", MaxInitialRequests)
	case start && c.MinServers > c.Servers:
		return intErr("min-servers", int64(c.MinServers), "must be from 1 to servers (%d)", c.Servers)
	case start && c.MaxServers < c.Servers:
		return intErr("max-servers", int64(c.MaxServers), "must be from servers (%d) to %d", c.Servers, MaxServersLimit)
	case c.MTBF > 0 && c.MTTR < 1:
		return intErr("mttr", c.MTTR, "must be a mean repair time from 1 to %d cycles when mtbf is set", MaxCycles)
	case c.MTBF == 0 && c.MTTR != 0:
		return intErr("mttr", c.MTTR, "needs mtbf: set both for random faults")
	case c.ConcurrencyLimit == LimitAIMD && c.limitMin() > c.limitInitial(): // only aimd reads the bounds
		return intErr("limit-min", int64(c.limitMin()), "must be from 1 to limit-initial (%d)", c.limitInitial())
	case c.ConcurrencyLimit == LimitAIMD && c.LimitInitial == 0 && c.limitInitial() > c.limitMax():
		// The start is its default: blame the ceiling that was given.
		return intErr("limit-max", int64(c.limitMax()), "must be from limit-initial (%d, its default) to %d", c.limitInitial(), MaxConcurrencyLimit)
	case c.ConcurrencyLimit == LimitAIMD && c.limitInitial() > c.limitMax():
		return intErr("limit-initial", int64(c.limitInitial()), "must be from limit-min (%d) to limit-max (%d)", c.limitMin(), c.limitMax())
	case c.TaskMax < c.TaskMin:
		return intErr("task-max", int64(c.TaskMax), "must be from task-min (%d) to %d", c.TaskMin, MaxTaskTime)
	case c.Autoscaler != TargetTracking && c.ScaleDown >= c.ScaleUp: // target tracking reads neither
		return &FieldError{Field: "scale-down", Value: c.ScaleDown.String(), Allowed: "must be ≥ 0 and below scale-up (" + c.ScaleUp.String() + ")"}
	case c.MinServers > c.MaxServers:
		return intErr("min-servers", int64(c.MinServers), "must be from 1 to max-servers (%d)", c.MaxServers)
	case c.Policy.Allowed(c.Queues) != "":
		return &FieldError{Field: "policy", Value: c.Policy.String(), Allowed: c.Policy.Allowed(c.Queues)}
	case c.Backoff > MaxBackoff>>max(c.Retries-1, 0):
		return intErr("backoff", c.Backoff, "must be ≥ 0 with backoff × 2^(retries−1) ≤ 2^40 (here at most %d)", int64(MaxBackoff>>max(c.Retries-1, 0)))
	case start && c.Service.usesMean() && c.MeanService == 0:
		return &FieldError{Field: "mean-service", Value: "(not given)", Allowed: fmt.Sprintf("--service %v needs --mean-service, a whole number of cycles from 1 to %d", c.Service, MaxTaskTime/20)}
	case start && c.ServiceMax > 0 && c.Service.usesMean() && c.ServiceMax < c.MeanService:
		return intErr("service-max", int64(c.ServiceMax), "must be from mean-service (%d) to %d", c.MeanService, MaxTaskTime)
	case c.Throttle != 0 && (c.Throttle < MinThrottle || c.Throttle > MaxThrottle):
		return throttleErr(c.Throttle)
	case c.CodelTarget > c.codelInterval():
		return intErr("codel-target", c.CodelTarget, "must be at most codel-interval (%d): a standing queue sheds after M cycles, any other after the interval", c.codelInterval())
	case start && c.Balancers > 1 && c.Queues != PerServer:
		return intErr("balancers", int64(c.Balancers), "a fleet routes at arrival: use --queues per-server")
	case start && c.Balancers > 1 && c.Switch:
		return intErr("balancers", int64(c.Balancers), "a fleet and the P/S switch do not combine: drop --switch or use --balancers 1")
	case start && c.Fanout > 1 && c.Queues != PerServer:
		return intErr("fanout", int64(c.Fanout), "fan-out routes each part at arrival: use --queues per-server")
	case start && c.Fanout > 1 && c.Switch:
		return intErr("fanout", int64(c.Fanout), "fan-out and the P/S switch do not combine: drop --switch or use --fanout 1")
	case c.HedgeAfter > 0 && c.Queues != PerServer:
		return intErr("hedge-after", c.HedgeAfter, "hedging routes each hedge at once: use --queues per-server")
	case (c.Fanout > 1 || c.HedgeAfter > 0) && !fanoutPolicy(c.Policy):
		return &FieldError{Field: "policy", Value: c.Policy.String(), Allowed: "fan-out and hedging route their attempts with " + fanoutPolicyNames() + " (the others are not built for it yet)"}
	case start && c.LoadInfo != LoadExact && c.Queues != PerServer:
		return &FieldError{Field: "load-info", Value: c.LoadInfo.String(), Allowed: "load information is what a balancer routing at arrival reads: use --queues per-server"}
	case c.Autoscaler == TargetTracking && c.ScaleMetric == MetricUtilization && c.ScaleTarget > DecimalScale:
		return &FieldError{Field: "scale-target", Value: c.ScaleTarget.String(), Allowed: "a utilization target must be above 0 and at most 1"}
	case c.Autoscaler == TargetTracking && c.ScaleMetric != MetricUtilization && c.ScaleTarget > 0 && c.ScaleTarget < MinScaleTarget:
		return &FieldError{Field: "scale-target", Value: c.ScaleTarget.String(), Allowed: fmt.Sprintf("a %v target must be from 0.01 to 1000000 (a utilization target may lie anywhere above 0)", c.ScaleMetric)}
	case start && c.Autoscaler == TargetTracking && c.ScaleMetric != MetricUtilization && c.ScaleTarget == 0:
		return &FieldError{Field: "scale-target", Value: "(not given)", Allowed: fmt.Sprintf("--scale-metric %v needs --scale-target, from 0.01 to 1000000", c.ScaleMetric)}
	case start && c.Service == Empirical && len(c.ServiceValues) == 0:
		return &FieldError{Field: "service-file", Value: "none", Allowed: fmt.Sprintf("--service empirical needs a file of 1 to %d service times, one whole number of cycles (1 to %d) a line", MaxServiceValues, MaxTaskTime)}
	}
	return nil
}

// validateInputs checks the blocked ranges and the trace rows, which may
// come from a snapshot rather than from ParseRange and ParseTrace: a row of
// time 0 would never complete, and a huge time would size the timing wheel
// beyond memory.
func (c *Config) validateInputs() error {
	for i, r := range c.Blocked {
		if r.First > r.Last {
			return &FieldError{Field: "blocked", Value: fmt.Sprintf("#%d %s-%s", i+1, FormatIPv4(r.First), FormatIPv4(r.Last)), Allowed: "a range must start at or before its end"}
		}
	}
	if len(c.Trace) > MaxTraceRows {
		return intErr("trace", int64(len(c.Trace)), "at most %d rows", MaxTraceRows)
	}
	last := int64(0)
	for i, r := range c.Trace {
		var allowed string
		switch {
		case r.Cycle < last:
			allowed = "rows must be in non-decreasing cycle order, from cycle 0"
		case r.Time < 1 || r.Time > MaxTaskTime:
			allowed = fmt.Sprintf("time must be from 1 to %d cycles", MaxTaskTime)
		case r.Type > Streaming:
			allowed = "type must be P or S"
		}
		if allowed != "" {
			return &FieldError{Field: "trace", Value: fmt.Sprintf("row %d (cycle %d, time %d, type %d)", i+1, r.Cycle, r.Time, r.Type), Allowed: allowed}
		}
		last = r.Cycle
	}
	return nil
}

// healthFall, healthRise and ejectFor (and p2c's choices) return the
// settings with 0 read as their defaults.
func (c *Config) healthFall() int { return cmp.Or(c.HealthFall, DefaultHealthFall) }
func (c *Config) healthRise() int { return cmp.Or(c.HealthRise, DefaultHealthRise) }
func (c *Config) ejectFor() int64 { return cmp.Or(c.EjectFor, DefaultEjectFor) }

// ClientSide reports whether any setting of the client side or detection
// is on: timeouts, retries, health checks, ejection, warm-up or
// replacement. With none on, a run is exactly what it is without them.
func (c *Config) ClientSide() bool {
	return c.Timeout != 0 || c.Retries != 0 || c.HealthInterval != 0 || c.EjectAfter != 0 ||
		c.ProvisionDelay != 0 || c.ReplaceAfter != 0
}

// Clone returns a copy of c that shares no slices with it.
func (c Config) Clone() Config {
	c.Blocked = slices.Clone(c.Blocked)
	c.Trace = slices.Clone(c.Trace)
	c.Weights = slices.Clone(c.Weights)
	c.Speeds = slices.Clone(c.Speeds)
	c.ServiceValues = slices.Clone(c.ServiceValues)
	return c
}

// Service is the distribution of processing times.
type Service uint8

// The service-time distributions (shapes). Their numbers are stored in
// snapshots: append only.
const (
	// Uniform draws whole cycles from TaskMin to TaskMax.
	Uniform Service = iota
	// Geometric draws k ≥ 1 cycles with P(k) = (1−p)^(k−1)·p, p = 1/MeanService:
	// the discrete form of the exponential distribution that M/M/c assumes.
	// Draws are capped at MaxTaskTime.
	Geometric
	// Constant makes every request take MeanService cycles.
	Constant
	// Lognormal draws min(⌈X⌉, Cap) with X lognormal of mean MeanService
	// and coefficient of variation ServiceCV.
	Lognormal
	// Pareto draws min(⌈X⌉, Cap) with X Pareto of shape ServiceShape and
	// mean MeanService.
	Pareto
	// Bimodal takes TaskMax with probability LongShare, else TaskMin.
	Bimodal
	// Empirical takes one of ServiceValues, uniformly.
	Empirical
	numServices
)

var serviceNames = [numServices]string{"uniform", "geometric", "constant", "lognormal", "pareto", "bimodal", "empirical"}

// ServiceNames lists the shapes' names, as --service takes them.
func ServiceNames() []string { return serviceNames[:] }

// String returns the name the --service flag takes.
func (s Service) String() string {
	if s < numServices {
		return serviceNames[s]
	}
	return fmt.Sprintf("Service(%d)", uint8(s))
}

// ParseService reads a service distribution's name.
func ParseService(s string) (Service, error) {
	for i, n := range serviceNames {
		if s == n {
			return Service(i), nil
		}
	}
	return 0, fmt.Errorf("unknown service distribution %q: allowed %s", quoted(s), strings.Join(serviceNames[:], ", "))
}
