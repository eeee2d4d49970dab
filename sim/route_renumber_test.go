package sim

import (
	"cmp"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// A routerWorld is a pool as the routers see it, named by server ids: it
// is projected onto balancers whose slots name the servers differently
// (routerTwin), so that a router renumbered now and then and one never
// renumbered can be told the same story.
type routerWorld struct {
	srv       []worldServer // by id−1; ids are never reused
	cands     []int         // the candidates, in the order of cands (added at the end, the last moved into a gap)
	lastGiven int           // id, 0 for none
	t         int64
	next      int64 // the next request's id
}

// worldServer is one server of a routerWorld.
type worldServer struct {
	gone, cand, busy bool
	req              packed   // in service, when busy
	done             int64    // when busy
	queue            []packed // waiting (per-server)
	speed            Speed
}

// load is the server's load: its queue and its request in service.
func (s *worldServer) load() int { return len(s.queue) + int(btou(s.busy)) }

// routerTwin is a model whose balancer the test writes (project) from a
// routerWorld, with its own slots for the servers.
type routerTwin struct {
	m    *Model
	b    *Balancer
	slot []int // by id−1: the server's slot, 0 once given up
}

// project writes w onto the twin's balancer: its servers in their slots,
// their queues, the candidates (active, in the order of cands), the idle
// and free servers, the live count and the last server given a request.
func (tw *routerTwin) project(w *routerWorld) {
	b := tw.b
	n := 0
	for _, s := range tw.slot {
		n = max(n, s)
	}
	b.srv, b.ids, b.sq = make([]server, n), make([]int32, n), make([]fifo, n)
	b.active, b.idle, b.free = rankedSet{}, idset{}, idset{}
	b.cands = cands{loads: b.cands.loads} // loads: p2c's
	b.live, b.lastGiven = 0, 0
	for i, s := range tw.slot {
		if s == 0 {
			continue
		}
		ws := &w.srv[i]
		b.ids[s-1] = int32(i + 1)
		b.srv[s-1] = server{req: ws.req, done: ws.done, speed: ws.speed, busy: ws.busy, gone: ws.gone}
		for _, q := range ws.queue {
			b.sq[s-1].pushBack(q, 0)
		}
		if !ws.gone {
			b.live++
		}
		if ws.cand {
			b.active.add(s)
			if !ws.busy {
				b.idle.add(s)
				if len(ws.queue) == 0 {
					b.free.add(s)
				}
			}
		}
	}
	for _, id := range w.cands {
		b.cands.add(tw.slot[id-1])
		if b.cands.loads {
			b.cands.load[len(b.cands.load)-1] = int32(w.srv[id-1].load())
		}
	}
	if w.lastGiven != 0 {
		b.lastGiven = tw.slot[w.lastGiven-1]
	}
}

// TestRoutersRenumber tells each policy's router, in each queue mode it
// takes, the same random story of a pool twice: to a router whose
// balancer's slots are the ids, and to one whose balancer gives up the
// slots of servers that have left now and then (as compact does) and calls
// renumber on every router it holds, the one in force and those of the
// policies it switched away from. Every pick must be the same server, the
// digests the same, and the renumbered routers must hold no slot beyond
// the balancer's.
func TestRoutersRenumber(t *testing.T) {
	rapidDefaults(100)
	for _, c := range []struct {
		queues QueueMode
		speeds bool
	}{{PerServer, false}, {PerServer, true}, {Pooled, false}, {Pooled, true}} {
		var ps []Policy
		for p := range numPolicies {
			if c.queues == PerServer && policies[p].PerServerRefused == "" || c.queues == Pooled && policies[p].PooledRefused == "" {
				ps = append(ps, p)
			}
		}
		for _, p := range ps {
			name := c.queues.String() + "/" + policies[p].Name
			if c.speeds {
				name += "/speeds"
			}
			t.Run(name, func(t *testing.T) {
				rapid.Check(t, func(t *rapid.T) { checkRoutersRenumber(t, c.queues, c.speeds, p, ps) })
			})
		}
	}
}

// checkRoutersRenumber runs one story for TestRoutersRenumber: policy p
// in force first, switching to the others of ps now and then.
func checkRoutersRenumber(t *rapid.T, queues QueueMode, speeds bool, p Policy, ps []Policy) {
	cfg := DefaultConfig()
	cfg.Queues, cfg.Policy = queues, p
	cfg.Servers = rapid.IntRange(1, 8).Draw(t, "servers")
	cfg.MaxServers = MaxServersLimit
	if p.ReadsWeights(queues) {
		cfg.Weights = rapid.SliceOfN(rapid.IntRange(0, 3), 0, 12).Draw(t, "weights")
		if !slices.ContainsFunc(cfg.Weights, func(w int) bool { return w > 0 }) {
			cfg.Weights = nil // some server must weigh more than 0 to begin with
		}
	}
	if speeds {
		cfg.Speeds = rapid.SliceOfN(rapid.SampledFrom([]Speed{SpeedScale / 2, SpeedScale, 3 * SpeedScale}), 1, 12).Draw(t, "speeds")
	}
	w := &routerWorld{}
	var tw [2]*routerTwin
	for i := range tw {
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		tw[i] = &routerTwin{m: m, b: m.bal[0]}
	}
	speedOf := func(id int) Speed {
		if id <= len(cfg.Speeds) {
			return cfg.Speeds[id-1]
		}
		return SpeedScale
	}
	newServer := func() int {
		id := len(w.srv) + 1
		w.srv = append(w.srv, worldServer{speed: speedOf(id), cand: true})
		w.cands = append(w.cands, id)
		for _, x := range tw {
			x.slot = append(x.slot, slices.Max(append(x.slot, 0))+1)
		}
		return id
	}
	for range cfg.Servers {
		newServer()
	}
	// each projects the world and calls f on each twin's router in force
	// with the server's slot there.
	each := func(id int, f func(rt router, slot int)) {
		for _, x := range tw {
			x.project(w)
			s := 0
			if id != 0 {
				s = x.slot[id-1]
			}
			f(x.b.rt, s)
		}
	}
	use := func(p Policy) {
		for _, x := range tw {
			x.m.cfg.Policy = p
			x.project(w)
			x.b.useRouter(w.t)
		}
	}
	use(p)
	// same compares the two twins' answers, slots, as servers.
	same := func(what string, got [2]int) int {
		id := [2]int{}
		for i, x := range tw {
			if s := got[i]; s != 0 {
				id[i] = x.b.idOf(s)
			}
		}
		if id[0] != id[1] {
			t.Fatalf("%s: server %d, renumbered %d (slot %d)", what, id[0], id[1], got[1])
		}
		return id[0]
	}
	pick := func(idle bool) int {
		q := newPacked(w.next, uint64(rapid.Uint32().Draw(t, "src"))<<32, w.t, uint32(rapid.IntRange(1, 9).Draw(t, "time")), 0)
		w.next++
		var got [2]int
		for i, x := range tw {
			x.project(w)
			if idle {
				got[i] = x.b.rt.pickIdle()
			} else if x.b.placeable() && x.b.active.n > 0 {
				got[i] = x.b.rt.pick(q, w.t)
			}
		}
		id := same("pick", got)
		if id == 0 {
			return 0
		}
		s := &w.srv[id-1]
		if !idle && tw[0].b.caps.Hears {
			each(id, func(rt router, slot int) { rt.joined(slot, q, w.t) })
		}
		w.lastGiven = id
		if s.busy {
			s.queue = append(s.queue, q)
			return id
		}
		s.busy, s.req, s.done = true, q, w.t+int64(s.speed.Cycles(q.time()))
		if idle && tw[0].b.caps.TracksIdle {
			each(id, func(rt router, slot int) { rt.idle(slot, false) })
		}
		return id
	}
	// some draws a server for which ok holds, or 0.
	some := func(ok func(s *worldServer) bool) int {
		var ids []int
		for i := range w.srv {
			if ok(&w.srv[i]) {
				ids = append(ids, i+1)
			}
		}
		if len(ids) == 0 {
			return 0
		}
		return rapid.SampledFrom(ids).Draw(t, "id")
	}
	// out takes a candidate holding nothing out of the candidates.
	out := func(id int) {
		s := &w.srv[id-1]
		s.cand = false
		i := slices.Index(w.cands, id)
		w.cands[i] = w.cands[len(w.cands)-1]
		w.cands = w.cands[:len(w.cands)-1]
		each(id, func(rt router, slot int) { rt.uncandidate(slot) })
		if tw[0].b.caps.TracksIdle {
			each(id, func(rt router, slot int) { rt.idle(slot, false) })
		}
	}
	in := func(id int) {
		w.srv[id-1].cand = true
		w.cands = append(w.cands, id)
		each(id, func(rt router, slot int) { rt.candidate(slot, w.t) })
		if tw[0].b.caps.TracksIdle {
			each(id, func(rt router, slot int) { rt.idle(slot, true) })
		}
	}
	perServer := queues == PerServer
	t.Repeat(map[string]func(*rapid.T){
		"route": func(t *rapid.T) {
			for range rapid.IntRange(1, 6).Draw(t, "requests") {
				pick(!perServer)
			}
		},
		"complete": func(t *rapid.T) {
			id := some(func(s *worldServer) bool { return s.busy && s.cand })
			if id == 0 {
				return
			}
			s := &w.srv[id-1]
			ok := rapid.IntRange(0, 3).Draw(t, "ok") > 0
			w.t = max(w.t, s.done)
			empty := len(s.queue) == 0
			if perServer && tw[0].b.caps.Hears {
				each(id, func(rt router, slot int) { rt.completed(slot, w.t, empty, ok) })
			}
			if empty {
				s.busy = false
				if !perServer && tw[0].b.caps.TracksIdle {
					each(id, func(rt router, slot int) { rt.idle(slot, true) })
				}
				return
			}
			s.req, s.queue = s.queue[0], s.queue[1:]
			s.done = w.t + int64(s.speed.Cycles(s.req.time()))
		},
		"time out": func(t *rapid.T) {
			id := some(func(s *worldServer) bool { return len(s.queue) > 0 && s.cand })
			if id == 0 {
				return
			}
			s := &w.srv[id-1]
			k := rapid.IntRange(0, len(s.queue)-1).Draw(t, "which")
			q := s.queue[k]
			s.queue = slices.Delete(s.queue, k, k+1)
			if tw[0].b.caps.Hears {
				each(id, func(rt router, slot int) { rt.left(slot, q, w.t, s.load() == 0) })
			}
		},
		"tick": func(t *rapid.T) { w.t += rapid.Int64Range(1, 5).Draw(t, "dt") },
		"scale up": func(t *rapid.T) {
			id := newServer()
			each(id, func(rt router, slot int) { rt.added(slot, w.t) })
			w.srv[id-1].cand = false
			w.cands = w.cands[:len(w.cands)-1]
			in(id)
		},
		"down": func(t *rapid.T) {
			if id := some(func(s *worldServer) bool { return s.cand && s.load() == 0 }); id != 0 {
				out(id)
			}
		},
		"up": func(t *rapid.T) {
			if id := some(func(s *worldServer) bool { return !s.cand && !s.gone }); id != 0 {
				in(id)
			}
		},
		"leave": func(t *rapid.T) {
			id := some(func(s *worldServer) bool { return !s.gone && s.load() == 0 })
			if id == 0 {
				return
			}
			if w.srv[id-1].cand {
				out(id)
			}
			w.srv[id-1].gone = true
		},
		"switch": func(t *rapid.T) { use(rapid.SampledFrom(ps).Draw(t, "policy")) },
		"renumber": func(t *rapid.T) {
			// Slots of servers that have left are given up, but for the
			// last one given a request's.
			x := tw[1]
			rn := &renumbering{to: make([]int32, len(x.b.srv))}
			for i, s := range x.slot {
				if s != 0 && w.srv[i].gone && i+1 != w.lastGiven && rapid.IntRange(0, 3).Draw(t, "giveUp") > 0 {
					x.slot[i] = 0
				}
			}
			for i, s := range x.slot {
				if s != 0 {
					rn.n++
					rn.to[s-1] = int32(rn.n)
					x.slot[i] = rn.n
				}
			}
			x.project(w)
			for _, rt := range x.b.routers {
				if rt != nil {
					rt.renumber(rn)
					checkRouterSlots(t, rt, rn.n)
				}
			}
		},
		"": func(t *rapid.T) {
			for _, x := range tw {
				x.project(w)
			}
			if d0, d1 := tw[0].b.routerDigest(), tw[1].b.routerDigest(); d0 != d1 {
				t.Fatalf("digests %d, renumbered %d", d0, d1)
			}
			for p := range numPolicies {
				if tw[0].b.routers[p] != nil {
					sameRouterState(t, tw[0].b.routers[p], tw[1].b.routers[p], tw[1].slot)
				}
			}
		},
	})
}

// checkRouterSlots fails when router rt holds state for a slot beyond n,
// the balancer's slots after a renumbering.
func checkRouterSlots(t *rapid.T, rt router, n int) {
	var held int
	switch r := rt.(type) {
	case *leastConnections:
		if r.ix != nil {
			held = len(r.ix.key)
		}
	case *leastWork:
		for _, ix := range []*ltree{r.ix, r.fastest} {
			if ix != nil {
				held = max(held, len(ix.key))
			}
		}
	case *peakEWMA:
		held = max(len(r.cost), len(r.at))
	case *swrrRouter:
		held = max(r.pooled.Len(), r.each.Len())
	case *hashRouter:
		held = r.known
		for _, p := range slices.Concat(r.ring.points, r.ring.over, r.few.points) {
			held = max(held, int(p.id))
		}
	}
	if held > n {
		t.Fatalf("%T holds slot %d after renumbering to %d slots", rt, held, n)
	}
}

// sameRouterState fails when router b, renumbered, keeps for some server
// another state than router a, never renumbered (slots the ids), keeps
// for it: slot gives each id's slot in b, 0 once given up.
func sameRouterState(t *rapid.T, a, b router, slot []int) {
	for i, s := range slot {
		id := i + 1
		if s == 0 {
			continue
		}
		var x, y [2]int64 // a's and b's state of the server, as far as held
		switch a := a.(type) {
		case *peakEWMA:
			b := b.(*peakEWMA)
			if id <= len(a.cost) && s <= len(b.cost) {
				x = [2]int64{int64(math.Float64bits(a.cost[id-1])), a.at[id-1]}
				y = [2]int64{int64(math.Float64bits(b.cost[s-1])), b.at[s-1]}
			}
		case *leastConnections:
			b := b.(*leastConnections)
			if a.ix != nil && id <= len(a.ix.key) && s <= len(b.ix.key) {
				x = [2]int64{a.ix.key[id-1], a.ix.weight[id-1]}
				y = [2]int64{b.ix.key[s-1], b.ix.weight[s-1]}
			}
		case *leastWork:
			b := b.(*leastWork)
			if a.ix != nil && id <= len(a.ix.key) && s <= len(b.ix.key) {
				x[0], y[0] = a.ix.key[id-1], b.ix.key[s-1]
			}
			if a.fastest != nil && id <= len(a.fastest.key) && s <= len(b.fastest.key) {
				x[1], y[1] = a.fastest.key[id-1], b.fastest.key[s-1]
			}
		case *swrrRouter:
			b := b.(*swrrRouter)
			if id <= a.each.Len() && s <= b.each.Len() {
				x[0], y[0] = a.each.Score(id-1), b.each.Score(s-1)
			}
			if id <= a.pooled.Len() && s <= b.pooled.Len() {
				x[1], y[1] = a.pooled.Scores(nil)[id-1], b.pooled.Scores(nil)[s-1]
			}
		}
		if x != y {
			t.Fatalf("%T: server %d's state %v, renumbered (slot %d) %v", a, id, x, s, y)
		}
	}
}

// TestChurnRenumbersRouters runs pools that scale up and down along a
// wave, so that servers created after a compaction have slots below their
// ids, under each router that holds state by slot, compacting at every
// chance and never: the two runs must agree on the state hash at every
// cycle and on the events, and the compacting one must have created
// servers after it first compacted.
func TestChurnRenumbersRouters(t *testing.T) {
	for _, c := range []struct {
		queues QueueMode
		policy Policy
		speeds []Speed
		rate   Rate // 0 for 3/4 a cycle
	}{
		{PerServer, Hash, nil, 0},
		{PerServer, LeastConnections, nil, 0},
		{PerServer, LeastWork, []Speed{50, 200, 100, 300}, RateScale}, // busy enough that no server is free at times
		{PerServer, PeakEWMA, nil, 0},
		{PerServer, SWRR, nil, 0},
		{Pooled, SWRR, nil, 0},
		{Pooled, LeastWork, []Speed{50, 200, 100, 300}, 0},
	} {
		t.Run(c.queues.String()+"/"+policies[c.policy].Name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Queues, cfg.Policy, cfg.Speeds, cfg.Seed = c.queues, c.policy, c.speeds, 3
			cfg.Servers, cfg.Cycles, cfg.WavePeriod = 10, 20_000, 2_000
			cfg.Rate, cfg.InitialPerServer = cmp.Or(c.rate, 3*RateScale/4), 0
			if c.policy.ReadsWeights(c.queues) {
				cfg.Weights = []int{2, 1, 3}
			}
			// run returns the state hashes and events, and how many servers
			// were created after the first compaction.
			run := func(min int) (tr trail, after int) {
				withCompactMin(min, func() {
					m := mustNewEvents(t, cfg)
					b, from := m.bal[0], -1
					for slots := len(b.srv); m.Step(); slots = len(b.srv) {
						tr.note(m)
						if from < 0 && len(b.srv) < slots {
							from = b.created
						}
					}
					if from >= 0 {
						after = b.created - from
					}
				})
				return
			}
			tr, _ := run(1 << 62)
			tr1, after := run(1)
			sameTrail(t, tr, tr1, "compaction")
			if after < 10 {
				t.Fatalf("%d servers created after the first compaction: the run does not churn enough", after)
			}
		})
	}
}
