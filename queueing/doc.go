// Package queueing holds the queueing theory lbsim checks itself against:
// Erlang B and Erlang C, the M/M/c waiting-time formulas, the same numbers
// for c separate M/M/1 queues (the "split" model), a batch-means confidence
// interval for measured averages, and a check that says in plain sentences
// whether a run's configuration is an M/M/c queue at all.
//
// # Units
//
// The package does not care which time unit is used as long as it is the
// same everywhere. In lbsim the unit is the clock cycle: λ is requests
// arriving per cycle, the mean service time m is in cycles, waits (Wq, W)
// are in cycles and queue lengths (Lq, L) are in requests.
//
// # Formulas
//
// With c servers, arrival rate λ and mean service time m (service rate
// μ = 1/m):
//
//	offered load   a  = λ·m                  (erlangs: the average number of busy servers)
//	load           ρ  = a/c                  (the fraction of time each server is busy)
//	Erlang B       B(0) = 1,  B(k) = a·B(k−1) / (k + a·B(k−1))  for k = 1 … c
//	Erlang C       C  = B / (1 − ρ(1 − B))   = c·B / (c − a + a·B)
//	P(wait)        = C                       (chance an arrival finds every server busy)
//	Wq             = C / (c·μ − λ)           = C·m / (c − a)
//	Lq             = λ·Wq,   W = Wq + m,   L = λ·W
//
// Erlang B is computed only by the recurrence above, never with factorials or
// powers: every step stays in [0, 1], so nothing overflows for any c up to
// [MaxServers], and the result agrees with an independent log-space sum to
// about 1e-11 relative at c = 10,000. Each step costs one multiplication, one
// addition and one division, so B and C cost O(c).
//
// The split model is c independent M/M/1 queues each fed λ/c (what a
// dispatcher that picks a server on arrival, with a queue per server, gives
// at best). Each has the same ρ, and
//
//	P(wait) = ρ,   Wq = ρ / (μ − λ/c) = ρ·m / (1 − ρ)
//
// which is always at least the pooled Wq: one queue in front of c servers
// waits far less than c queues in front of one server each.
//
// # Staffing
//
// The inverse question, how many servers a target needs, is answered by
// search over c (Wq and the wait tail fall as c grows): [MinServersForWait]
// for a mean wait, [MinServersForWaitQuantile] for a wait percentile, from
//
//	P(Wq > t) = C·e^(−(c−a)·t/m)
//
// and beside them the square-root staffing rule of Halfin and Whitt,
// c ≈ a + β√a ([SquareRootStaffing]), with β solving
// P(wait) = [1 + β·Φ(β)/φ(β)]⁻¹ ([HalfinWhittBeta]).
//
// # Clients that give up
//
// [Reneging] adds a deterministic patience τ from arrival (lbsim's
// timeout without retries): the servers see an M/M/c+D queue, since work
// abandoned in service still runs to its end. [Reneging.Continuous] gives
// its closed form, [Reneging.Discrete] the exact numbers of lbsim's
// whole-cycle rules (a Markov chain of the offered wait), and
// [Reneging.RetryEquilibria] the mean-field states of the same queue when
// clients retry: one healthy state, or also an overloaded one kept up by
// its own retries (metastability).
//
// # Errors
//
// Every function validates its input. An input outside its allowed range
// (c < 1 or c > [MaxServers], a negative rate, a mean service time ≤ 0, NaN or
// ±Inf) gives an [*InputError], which matches [ErrInvalid] with [errors.Is]
// and names the input and what is allowed. A load ρ ≥ 1 gives an
// [*UnstableError], which matches [ErrUnstable]: the queue grows without bound
// and Erlang C has no answer. No function returns NaN or ±Inf with a nil
// error.
//
// # Determinism
//
// Only +, −, ·, ÷ and [math.Sqrt] are used, each of which IEEE 754 rounds
// correctly (the staffing functions add detmath's exponential,
// made of the same operations), and every product that is then added or subtracted is wrapped in
// an explicit float64(…) conversion, which the Go specification says stops
// the compiler from fusing it into a multiply-add (as it otherwise does on
// arm64, ppc64le, s390x and riscv64). So results are bit-identical on every
// platform, WebAssembly included; a golden test pins them. The one
// exception is [HalfinWhittBeta], whose normal distribution comes from
// [math.Erfc]: its β may differ in the last bits between platforms, which
// only ever moves a printed estimate. The package holds
// no mutable global state (the error sentinels are never reassigned).
package queueing
