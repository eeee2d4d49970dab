// Package sim is lbsim's deterministic model of a load balancer: requests
// arrive every clock cycle, pass a firewall that rejects blocked source
// addresses, wait in a FIFO queue and are dispatched to a pool of servers that
// grows and shrinks with queue pressure.
//
// The model knows nothing of screens, files or JavaScript. A Model is built
// from a Config by New and advanced one cycle at a time by Step; read-only
// views (Servers, QueueAt, Pool, Totals, Last, Events, Summary) let a
// renderer or a report look at it between cycles, and Schedule lets the
// settings change between cycles (sliders, --set), each change recorded so
// that a replay can make it again.
//
// # Determinism
//
// Every random draw comes from the run's own PCG generator seeded with
// Config.Seed. Anything that feeds the state is integer arithmetic or plain
// IEEE-754 operations (rates are held in millionths, thresholds in
// thousandths, e^-x, ln x and the wave's sine are computed by package
// detmath), so the same Config and
// changes give bit-identical results natively and in WebAssembly.
//
// # The clock
//
// Cycle 0 (New): servers 1..S0 are created idle; the initial requests
// (S0 × InitialPerServer generated ones, or the trace rows of cycle 0) pass
// the firewall: a blocked one is rejected, one that finds the queue full is
// discarded, the rest are admitted; the admitted count is the initial queue.
// Then dispatch (step d). No scaling at cycle 0.
//
// Each cycle t = 1 … N (Step), in this order:
//
//   - Scheduled changes for t take effect; warming servers whose warm-up
//     ends become candidates.
//   - a. Work: every request whose completion cycle is t completes; its
//     server becomes idle, or leaves the pool if it was retiring. Servers
//     in id order: with the client side or detection on, the order tells
//     (an ejection counts the servers live when it is decided; a retry's
//     jitter is drawn and its budget granted in turn).
//   - a′. Timeouts (client.go): every attempt whose deadline is t is
//     abandoned, oldest first.
//   - b. Arrivals: the lobby drains (per-server), the retries due arrive by
//     request id, then the requests arriving at t pass the firewall as at
//     cycle 0. With --throttle (throttle.go) each retry and each first
//     attempt past the firewall (and a fleet's draw) may be refused by its
//     own client before it is routed or queued.
//   - c. Detection (detect.go): health probes at the multiples of their
//     interval, ejections whose time is up, replacement; then scaling, only when t is a multiple of the cooldown K: with Q the
//     queue length, S the active servers and L the live ones, if Q > U·S and
//     L < max one idle server is added (next id); otherwise if Q < D·S and
//     S > min the idle active server with the highest id is removed, or, when
//     none is idle, the busy active server with the highest id is marked
//     retiring. At most one action.
//   - d. Dispatch: while the queue is non-empty and an active server is idle,
//     the oldest request goes to the server the Policy picks. Its wait is
//     t − arrival. A request of time T dispatched at t completes at t + T.
//     With --codel-target (codel.go) a queue first sheds the attempts that
//     have waited in it too long; the discipline (discipline.go) may take
//     the newest instead of the oldest.
//   - e. Record: the levels at the end of the cycle (Last, peaks).
//
// The run stops after cycle N without draining the queue.
//
// # Where things are
//
// The engine: model.go (the clock, New, Step, faults), balancer.go (one
// pool and where its requests wait), perserver.go (routing at arrival,
// each server's queue, the lobby), gray.go (gray failures: slow, failing,
// hanging servers), client.go (attempts, timeouts, retries and their
// budget), deadlines.go (their deadlines: a ring of first attempts read
// in order, a FIFO of retries per timeout), detect.go (health checks,
// outlier ejection, warm-up, replacement), discipline.go, codel.go and
// throttle.go (overload control: which attempt a queue hands out,
// shedding, client throttling), stats.go (counters, summary, timeline rows), slots.go
// (servers are named by slots inside the package, renumbered in order as
// servers leave, so memory follows the live servers, not every id ever
// given).
//
// The routers, one file per policy (route_*.go), each made from its entry
// in the policy table (policy.go) and declaring its capabilities (Caps);
// router.go says what a router is and which hooks the balancer calls. The
// data structures they keep: ltree.go (a tournament tree of loads or done
// cycles), ring.go (the consistent-hashing ring), cands.go (the
// candidates for uniform draws), idset.go and rankedset.go.
//
// The shortcuts, entered through one gate (shortcut.go) and each keeping
// the invariant its doc comment states: saturated.go, turnover.go,
// pooled.go, routed.go, window.go, skip.go; skip.go and the cycle loops of
// pooled.go and routed.go also run while the client side and detection
// are quiet, up to their next deadline, retry or probe round
// (quietWatch, watchLimit). WithPlain turns them all off; the tests check
// them against stepping and against a plain reference model.
//
// The inputs: config.go and settings.go (the configuration and the names
// that set it), change.go (changes during a run, faults included),
// generator.go and service.go (the request stream and its service times),
// firewall.go, trace.go.
//
// # Bounded memory
//
// Queued requests take memory, so a Model bounds them (DefaultMaxQueued,
// or WithMaxQueued): a run whose queue exceeds the bound at the end of a
// cycle stops there, Done and with Err a *QueueLimitError naming the cycle.
// RunTo stops at the same cycle as stepping would. Every other input is
// bounded by Validate's limits.
//
// # Cost
//
// A cycle costs O(1) plus O(1) per arrival, dispatch, completion and scaling
// action: completions sit in a timing wheel and idle servers in a bitset, so
// neither busy nor idle servers are visited on cycles where nothing happens to
// them. Model.RunTo does better than stepping, with the same outcome: it
// jumps over quiet cycles, admits arrivals in bulk while no server is idle,
// and, while the queue is long enough that nothing arriving in a stretch of
// cycles can be served within it, runs the stretch's arrivals and its
// completions as two separate passes. The default run (20 servers, 100,000
// cycles) then takes a few hundred steps; see BenchmarkDefaultRun. Per-server
// runs visit only the cycles with a completion, an arrival or a scaling
// evaluation, and there a server that completes with a queue, or an
// arrival routed to an idle server, goes into service at once, as step d
// would put it (runRouted); see BenchmarkPerServer.
package sim
