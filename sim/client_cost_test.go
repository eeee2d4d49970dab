package sim

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// longQueue is a pooled run that builds a queue of about 100 requests a
// cycle on two servers (no firewall, long requests).
func longQueue(cycles int64) Config {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles = 1, cycles
	cfg.Servers, cfg.MinServers, cfg.MaxServers = 2, 2, 2
	cfg.TaskMin, cfg.TaskMax = 1000, 1000
	cfg.Rate, cfg.Wave, cfg.InitialPerServer, cfg.Blocked = 100*RateScale, false, 0, nil
	return cfg
}

// TestShorterTimeoutOverLongQueue sets a timeout of 1 over a pooled queue
// of about 50,000 requests (issue 37, item 4): each attempt it ends, the
// newest of the queue, must be found near where it is, not by a search
// from the queue's head. It counts the places searched against the
// attempts timed out: a search from the head looked at about 50,000 a
// timeout pooled, 25,000 per-server (quadratic: 400 cycles of it took
// 15 s at 500,000); now pooled at most 4, per-server, where the victims
// of one cycle alternate between queues, at most the cycle's arrivals.
func TestShorterTimeoutOverLongQueue(t *testing.T) {
	for _, q := range []QueueMode{Pooled, PerServer} {
		cfg := longQueue(600)
		cfg.Queues = q
		if q == PerServer {
			cfg.Policy = RoundRobin
		}
		m := scheduled(t, cfg, Change{Cycle: 500, Setting: SetTimeout, Value: 1})
		m.Run()
		tot := m.Totals()
		searched := m.bal[0].cl.searched
		most := int64(4)
		if q == PerServer {
			most = 100
		}
		if tot.TimedOutQueued < 9_000 || m.QueueLen() < 40_000 || searched > most*tot.TimedOutQueued {
			t.Errorf("%v: %d timed out of a queue of %d, %d places searched; want about 10,000 of about 50,000 and at most %d places each",
				q, tot.TimedOutQueued, m.QueueLen(), searched, most)
		}
	}
}

// TestQueuedBytesWithTimeout measures the heap a model holds per queued
// request with a timeout in force that has not struck (issue 37, item
// 3): the queue's 24 bytes, its buffer's doubling, and the word each
// first attempt keeps for its deadline; --max-queued's docs promise about
// 64 bytes at the peak (a record and a heap entry per attempt took about
// 200).
func TestQueuedBytesWithTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a queue of 300,000")
	}
	for _, timeout := range []int64{0, 1_000_000} {
		cfg := longQueue(3000)
		cfg.Timeout = timeout
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		m.Run()
		runtime.GC()
		runtime.ReadMemStats(&after)
		queued := m.QueueLen()
		per := float64(after.HeapAlloc-before.HeapAlloc) / float64(queued)
		runtime.KeepAlive(m)
		t.Logf("timeout %d: %d queued, %.1f bytes each", timeout, queued, per)
		if queued < 250_000 || per > 64 {
			t.Errorf("timeout %d: %d queued, %.1f bytes each; want more than 250,000 at most 64 bytes each", timeout, queued, per)
		}
	}
}

// TestDeadlineRingMatchesHeap: the ring of first attempts and its epochs
// and the retries' queues (deadlines.go) time out exactly the attempts,
// in exactly the order, that the heap of explicit deadlines does. Each
// random client run (with its changes of the timeout) runs twice, the
// second time with every first attempt spilled into the heap at once (no
// room beyond the live entries, one epoch) and every retry's deadline
// pushed there, and the two must give the same events every cycle.
func TestDeadlineRingMatchesHeap(t *testing.T) {
	// Retries in flight across eight changes of the timeout, shorter and
	// longer, on a pooled and a per-server balancer.
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Servers, cfg.MinServers, cfg.MaxServers = 3, 4000, 8, 8, 8
	cfg.Service, cfg.MeanService, cfg.Rate, cfg.Wave, cfg.InitialPerServer = Geometric, 50, RateScale/5, false, 0
	cfg.Timeout, cfg.Retries, cfg.Jitter, cfg.Backoff = 120, 3, true, 5
	var changes []Change
	for i, T := range []int64{40, 300, 10, 200, 90, 500, 0, 60} {
		changes = append(changes, Change{Cycle: int64(1000 + 200*i), Setting: SetTimeout, Value: T})
	}
	for _, q := range []QueueMode{Pooled, PerServer} {
		cfg.Queues = q
		if q == PerServer {
			cfg.Policy = P2C
		}
		ringAndHeap(t, cfg, changes)
	}
	rapidDefaults(clientChecks())
	rapid.Check(t, func(t *rapid.T) {
		cfg := genClientConfig(t)
		changes := append(genClientChanges(t, cfg), genBusyChanges(t, cfg)...)
		slices.SortStableFunc(changes, func(a, b Change) int { return int(a.Cycle - b.Cycle) })
		ringAndHeap(t, cfg, changes)
	})
}

// ringAndHeap runs cfg with changes with the deadlines kept as the model
// keeps them and all in the heap (withSpills), and fails at the first
// cycle whose events or state differ.
func ringAndHeap(t interface {
	Fatalf(string, ...any)
	Skip(...any)
}, cfg Config, changes []Change) {
	build := func() *Model {
		m, err := New(cfg, WithEvents())
		if err == nil {
			err = m.Schedule(changes...)
		}
		if err != nil {
			t.Skip(err)
		}
		return m
	}
	ring := build()
	var heap *Model
	withSpills(func() { heap = build() })
	for {
		var ok bool
		withSpills(func() { ok = heap.Step() })
		if ring.Step() != ok {
			t.Fatalf("cycle %d: one run stopped, the other did not", ring.Cycle())
		}
		if a, b := fmt.Sprint(ring.Events()), fmt.Sprint(heap.Events()); a != b || ring.Hash() != heap.Hash() {
			t.Fatalf("cycle %d: the ring and the heap differ:\nring %s\nheap %s\nconfig %+v\nchanges %v", ring.Cycle(), a, b, cfg, changes)
		}
		if !ok {
			return
		}
	}
}

// withSpills runs f with every deadline in the heap: each first
// attempt's spilled as soon as it can be, each retry's pushed there.
func withSpills(f func()) {
	epochs, slack := maxEpochs, ringSlack
	maxEpochs, ringSlack = 0, -1<<60
	defer func() { maxEpochs, ringSlack = epochs, slack }()
	f()
}

// TestQuietWatchRunToMatchesStepping: with a timeout or health checks on
// and nothing for them to find, RunTo takes the shortcuts (skipAhead and
// runRouted's cycle loop) up to the next deadline, retry or probe round;
// random busy runs, with the client side drawn quiet (a timeout of 50 to
// 3,000, health checks every 1 to 200 cycles) and changed later by the
// client changes and faults, must leave exactly the state, summary and
// last row that stepping does at random stops. The retry budget's window
// of the cycles passed is read once retries and a budget are set.
func TestQuietWatchRunToMatchesStepping(t *testing.T) {
	rapidDefaults(clientChecks())
	opened := 0
	rapid.Check(t, func(t *rapid.T) {
		cfg := genBusyConfig(t)
		// Shedding and a concurrency limit close the gate: off here, so
		// that the runs drawn reach the shortcuts (the throttle's take them).
		cfg.CodelTarget, cfg.ConcurrencyLimit = 0, 0
		if rapid.Bool().Draw(t, "quietTimeout") {
			cfg.Timeout = rapid.Int64Range(50, 3000).Draw(t, "timeout")
		}
		if rapid.Bool().Draw(t, "quietHealth") {
			cfg.HealthInterval = rapid.Int64Range(1, 200).Draw(t, "healthInterval")
		}
		changes := append(genClientChanges(t, cfg), genBusyChanges(t, cfg)...)
		changes = changes[:rapid.IntRange(0, len(changes)).Draw(t, "keep")]
		slices.SortStableFunc(changes, func(a, b Change) int { return int(a.Cycle - b.Cycle) })
		stepped := newClientRun(t, cfg, changes)
		jumped := newClientRun(t, cfg, changes)
		if jumped.watching() && jumped.gate() != viaNone {
			opened++
		}
		for _, stop := range drawStops(t, cfg.Cycles) {
			stepAndJumpClient(t, stepped, jumped, stop, cfg, changes)
			if a, b := budgetWindows(jumped), budgetWindows(stepped); a != b {
				t.Fatalf("at cycle %d: RunTo and Step leave different budget windows:\n%s\n%s", stop, a, b)
			}
		}
	})
	if opened == 0 {
		t.Error("no run opened a shortcut while watching")
	}
}

// budgetWindows describes every balancer's retry budget window: the
// running totals of the last 1,000 cycles recorded.
func budgetWindows(m *Model) string {
	out := ""
	for _, b := range m.bal {
		if c := b.cl; c != nil {
			out += fmt.Sprint(c.cumAdm, c.cumGr, c.stamp, c.baseAdm, c.granted)
		}
	}
	return out
}
