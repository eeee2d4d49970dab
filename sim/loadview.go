package sim

// loadView is what the balancers of a fleet read of the servers' loads and
// remaining work (Config.LoadInfo), kept up to date as requests come and
// go: the fleet hands it to the router in force, whose per-server picks
// read it (fleetPicker), so that no code outside the policy table asks
// which policy is in force. With exact information it reads the servers
// themselves; with local counts (K > 1) each balancer's own attempts at
// each server; with a periodic board the board's entry plus what the
// balancer sent since the refresh.
//
// Memory, by balancer and server slot: 4 bytes with local counts (8 more
// once least-work has been in force: the attempts' service cycles), 16
// with a board (what each balancer sent since the refresh, picks and
// cycles); a router that picks the least by the view keeps an index
// (viewIndex) of a few bytes more a server per balancer, and entries only
// for the servers a balancer holds attempts at or sent to.
type loadView struct {
	b *Balancer
	k int
	// count (local counts, K > 1) holds, by balancer and slot−1, the
	// attempts of the balancer that the server holds (queued, in service,
	// or abandoned work still running); held, once a router that reads
	// work has come into force, their service cycles at the server's
	// speed.
	count [][]int32
	held  [][]int64
	// The periodic board (LoadInfo > 0): each server's load and work at
	// the last refresh (0 for a server created since), and by balancer
	// and slot−1 what it has sent there since: picks, and their service
	// cycles at the server's speed. touched lists, by balancer, the slots
	// it sent to since the refresh (a refresh clears only those), and
	// heldAll, by slot−1, the service cycles of all a server holds (so
	// that a refresh reads each server's work without walking its queue).
	boardLoad, boardWork []int64
	sentLoad, sentWork   [][]int64
	touched              [][]int32
	heldAll              []int64
	boardAt              int64
	// counts: the view keeps counts that every request in and out of a
	// server moves (local counts, or a board's heldAll).
	counts bool
	// hearsServe: the index in force reads who serves whom (least-work's
	// of local counts), so it hears each service start (served).
	hearsServe bool
	// ix is the index of the router in force that picks the least by this
	// view (nil for none): it hears every change of the view.
	ix *viewIndex
	// walked counts the queued requests read (once, by keepWork) and
	// written the servers written on the board, for the tests that bound
	// them.
	walked, written int64
}

// newLoadView makes the view of a fleet of k balancers over the n servers
// the balancer has, with room for capHint.
func newLoadView(b *Balancer, k, n, capHint int) *loadView {
	info := b.m.cfg.LoadInfo
	v := &loadView{b: b, k: k}
	capHint = max(capHint, n)
	if info == LoadLocal && k > 1 {
		// K > 1 makes the fleet when the balancer is built, before any
		// request: every count starts at 0.
		v.count = make([][]int32, k)
		for j := range k {
			v.count[j] = make([]int32, n, capHint)
		}
	}
	if info > 0 {
		v.boardLoad, v.boardWork = make([]int64, n, capHint), make([]int64, n, capHint)
		v.heldAll = make([]int64, n, capHint)
		v.sentLoad, v.sentWork = make([][]int64, k), make([][]int64, k)
		v.touched = make([][]int32, k)
		for j := range k {
			v.sentLoad[j], v.sentWork[j] = make([]int64, n, capHint), make([]int64, n, capHint)
		}
	}
	v.counts = v.count != nil || v.heldAll != nil
	return v
}

// viewed reports whether the balancers read something other than the true
// loads.
func (v *loadView) viewed() bool { return v.count != nil || v.boardLoad != nil }

// added makes room for a server created in slot s (0 on the board).
func (v *loadView) added(s int) {
	for j := range v.count {
		v.count[j] = grown(v.count[j], s)
	}
	for j := range v.held {
		v.held[j] = grown(v.held[j], s)
	}
	if v.boardLoad != nil {
		v.boardLoad, v.boardWork, v.heldAll = grown(v.boardLoad, s), grown(v.boardWork, s), grown(v.heldAll, s)
		for j := range v.k {
			v.sentLoad[j], v.sentWork[j] = grown(v.sentLoad[j], s), grown(v.sentWork[j], s)
		}
	}
}

// grown returns s with zeros appended up to length n.
func grown[T any](s []T, n int) []T {
	var zero T
	for len(s) < n {
		s = append(s, zero)
	}
	return s
}

// cycles is request r's service at server s's speed.
func (v *loadView) cycles(s int, r packed) int64 {
	return int64(v.b.srv[s-1].speed.Cycles(r.time()))
}

// hold adds d to what attempt r's balancer holds at server s: r joined s's
// queue or service (1), or left it, served or not (−1).
func (v *loadView) hold(s int, r packed, d int32) {
	if v.heldAll != nil {
		v.heldAll[s-1] += int64(d) * v.cycles(s, r)
	}
	if v.count == nil {
		return
	}
	k := r.member()
	v.count[k][s-1] += d
	if v.held != nil {
		v.held[k][s-1] += int64(d) * v.cycles(s, r)
	}
	if v.ix != nil {
		v.ix.changed(k, s)
	}
}

// served notes that server s started serving its attempt in service.
func (v *loadView) served(s int) {
	v.ix.changed(v.b.srv[s-1].req.member(), s)
}

// picked notes balancer k's pick of server s for attempt r: what it sent
// since the board's refresh.
func (v *loadView) picked(k, s int, r packed) {
	if v.sentLoad[k][s-1] == 0 {
		v.touched[k] = append(v.touched[k], int32(s))
	}
	v.sentLoad[k][s-1]++
	v.sentWork[k][s-1] += v.cycles(s, r)
	if v.ix != nil {
		v.ix.changed(k, s)
	}
}

// keepWork makes the local counts keep their attempts' service cycles
// too, from what the servers hold now (a router that reads work came into
// force).
func (v *loadView) keepWork() {
	if v.count == nil || v.held != nil {
		return
	}
	b := v.b
	v.held = make([][]int64, v.k)
	for j := range v.k {
		v.held[j] = make([]int64, len(b.srv), cap(v.count[j]))
	}
	for s := 1; s <= len(b.srv); s++ {
		if srv := &b.srv[s-1]; srv.busy {
			v.held[srv.req.member()][s-1] += v.cycles(s, srv.req)
		}
		q := &b.sq[s-1]
		for i := range q.n {
			r := q.at(i)
			v.held[r.member()][s-1] += v.cycles(s, r)
		}
		v.walked += int64(q.n)
	}
}

// load returns what balancer k believes server s's load to be.
func (v *loadView) load(k, s int) int64 {
	switch {
	case v.boardLoad != nil:
		return v.boardLoad[s-1] + v.sentLoad[k][s-1]
	case v.count != nil:
		return int64(v.count[k][s-1])
	}
	return v.b.load(s)
}

// serving reports whether server s is serving an attempt of balancer k.
func (v *loadView) serving(k, s int) bool {
	srv := &v.b.srv[s-1]
	return srv.busy && srv.req.member() == k
}

// work returns what balancer k believes server s's remaining work to be at
// cycle t: its own attempts' (local: what is left of the one in service
// and the service of those queued), or the board's plus what it sent
// (periodic).
func (v *loadView) work(k, s int, t int64) int64 {
	switch {
	case v.boardLoad != nil:
		return v.boardWork[s-1] + v.sentWork[k][s-1]
	case v.count != nil:
		if v.count[k][s-1] == 0 {
			return 0
		}
		v.keepWork()
		w := v.held[k][s-1]
		if v.serving(k, s) {
			srv := &v.b.srv[s-1]
			w += max(srv.done-t, 0) - v.cycles(s, srv.req)
		}
		return w
	}
	return v.b.remainingWork(s, t)
}

// remainingWork returns server s's remaining work at cycle t: the cycles
// its attempt in service has still to run (abandoned work included) and
// the service cycles of its queue at its speed.
func (b *Balancer) remainingWork(s int, t int64) int64 {
	var w int64
	if srv := &b.srv[s-1]; srv.busy {
		w = max(srv.done-t, 0)
	}
	return w + b.queuedWork(s)
}

// refresh writes every server's load and work on the board at cycle t and
// forgets what each balancer sent since the last refresh: O(servers), and
// the slots each balancer sent to.
func (v *loadView) refresh(t int64) {
	b := v.b
	for s := 1; s <= len(b.srv); s++ {
		srv := &b.srv[s-1]
		if srv.gone {
			v.boardLoad[s-1], v.boardWork[s-1] = 0, 0
			continue
		}
		w := v.heldAll[s-1] // the service of what it holds; of the one in service, what is left
		if srv.busy {
			w += max(srv.done-t, 0) - v.cycles(s, srv.req)
		}
		v.boardLoad[s-1], v.boardWork[s-1] = b.load(s), w
	}
	v.written += int64(len(b.srv))
	for j := range v.k {
		for _, s := range v.touched[j] {
			v.sentLoad[j][s-1], v.sentWork[j][s-1] = 0, 0
		}
		v.touched[j] = v.touched[j][:0]
	}
	v.boardAt = t
	if v.ix != nil {
		v.ix.stale = true
	}
}

// renumber moves the view to the slots of rn (compact).
func (v *loadView) renumber(rn *renumbering) {
	keep := func(i int) bool { return rn.to[i] != 0 }
	for j := range v.count {
		v.count[j] = compactSlice(v.count[j], keep)
	}
	for j := range v.held {
		v.held[j] = compactSlice(v.held[j], keep)
	}
	if v.boardLoad != nil {
		v.boardLoad = compactSlice(v.boardLoad, keep)
		v.boardWork = compactSlice(v.boardWork, keep)
		v.heldAll = compactSlice(v.heldAll, keep)
		for j := range v.k {
			v.sentLoad[j] = compactSlice(v.sentLoad[j], keep)
			v.sentWork[j] = compactSlice(v.sentWork[j], keep)
			t := v.touched[j][:0]
			for _, s := range v.touched[j] {
				if n := rn.of(int(s)); n != 0 {
					t = append(t, int32(n))
				}
			}
			v.touched[j] = t
		}
	}
	if v.ix != nil {
		v.ix.stale = true
	}
}

// digest folds the view's counts into Model.Hash: each balancer's local
// counts and sent picks weighted by server id, and the board's loads, all
// over the servers that have not left. It reads ids, not slots, and skips
// the slots of servers that have left, so compaction leaves it as it was.
func (v *loadView) digest(put func(int64)) {
	for _, l := range v.count {
		put(weighedByID(v.b, l))
	}
	for j := range v.sentLoad {
		put(weighedByID(v.b, v.sentLoad[j]))
	}
	for i, c := range v.boardLoad {
		if !v.b.srv[i].gone {
			put(int64(v.b.ids[i]) * c)
		}
	}
}

// weighedByID returns the sum of l's entries, by slot−1, each times its
// server's id, over the servers that have not left.
func weighedByID[T int32 | int64](b *Balancer, l []T) int64 {
	var sum int64
	for i, c := range l {
		if !b.srv[i].gone {
			sum += int64(b.ids[i]) * int64(c)
		}
	}
	return sum
}
