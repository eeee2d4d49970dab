package sim

// Draws: a read-only tap on the random draws of p2c and peak-EWMA, for a
// view that explains a decision (the page's step mode names the servers
// the winner beat). The routers note their draws only while a tap is on
// (Balancer.TapDraws); off, as it is unless a view asks, a pick pays one
// test of a nil pointer. What is noted is never read by the model: it is
// neither state nor hashed nor in a snapshot.

// Draw is one pick of a policy that draws its candidates: the request
// routed (its id), the balancer of the fleet that drew (0 for one
// balancer), the candidates drawn in the order drawn, and the server
// picked. Every routing is a pick: arrivals and retries, and requests
// re-queued off a failed server.
type Draw struct {
	Request int64
	Member  int
	Drawn   []Drawn
	Picked  int
}

// Drawn is one candidate drawn: its id, the load the drawing balancer
// read there, and, for peak-EWMA, the server's cost (its peak-EWMA
// response time; its score is Cost·(Load + 1)), 0 for p2c.
type Drawn struct {
	ID   int
	Load int64
	Cost float64
}

// drawTap holds the draws noted since the tap was turned on.
type drawTap struct {
	draws []Draw
}

// TapDraws turns the tap on the balancer's draws on (afresh: what it held
// is dropped) or off. The draws noted are those of p2c and peak-EWMA,
// per-server.
func (b *Balancer) TapDraws(on bool) {
	b.tap = nil
	if on {
		b.tap = &drawTap{}
	}
}

// Draws returns the draws noted since the tap was turned on, in the order
// they were made; nil when the tap is off.
func (b *Balancer) Draws() []Draw {
	if b.tap == nil {
		return nil
	}
	return b.tap.draws
}

// noteDraw notes a draw of member k for request q: the candidates at indices xs of ids
// (slots), in the order drawn, the loads read there (by index), cost
// giving peak-EWMA's cost of a slot (nil for p2c), and the slot picked.
func (b *Balancer) noteDraw(k int, q int64, xs []int, ids []int32, load func(x int) int64, cost func(s int) float64, picked int) {
	d := Draw{Request: q, Member: k, Picked: b.idOf(picked)}
	for _, x := range xs {
		s := int(ids[x])
		c := Drawn{ID: b.idOf(s), Load: load(x)}
		if cost != nil {
			c.Cost = cost(s)
		}
		d.Drawn = append(d.Drawn, c)
	}
	b.tap.draws = append(b.tap.draws, d)
}
