package sim

import (
	"fmt"
	"strings"
)

// Discipline is which queued attempt step d takes next from a queue (the
// pooled one, or a server's own). Its number is stored in snapshots:
// append-only.
type Discipline uint8

// The disciplines.
const (
	// Fifo takes the attempt that joined first (the default).
	Fifo Discipline = iota
	// Lifo takes the attempt that joined last.
	Lifo
	// AdaptiveLifo takes the newest while the queue is standing (it has
	// not been empty at the end of any of the last codel-interval
	// cycles), else the oldest.
	AdaptiveLifo
	numDisciplines
)

// DefaultCodelInterval is the codel interval N a Config's 0 stands for.
const DefaultCodelInterval = 100

// MaxCodelInterval is the longest codel interval.
const MaxCodelInterval = 1_000_000

var disciplineNames = [numDisciplines]string{"fifo", "lifo", "adaptive-lifo"}

// String returns the name the --discipline flag takes.
func (d Discipline) String() string {
	if d < numDisciplines {
		return disciplineNames[d]
	}
	return fmt.Sprintf("Discipline(%d)", uint8(d))
}

// DisciplineNames lists the disciplines' names in their numbering order.
func DisciplineNames() []string { return disciplineNames[:] }

// ParseDiscipline reads a discipline's name.
func ParseDiscipline(s string) (Discipline, error) {
	for i, n := range disciplineNames {
		if s == n {
			return Discipline(i), nil
		}
	}
	return 0, fmt.Errorf("unknown discipline %q: allowed %s", quoted(s), strings.Join(disciplineNames[:], ", "))
}

// codelInterval returns the codel interval N in force.
func (m *Model) codelInterval() int64 { return m.cfg.codelInterval() }

// codelInterval returns the codel interval N c sets.
func (c *Config) codelInterval() int64 {
	if c.CodelInterval == 0 {
		return DefaultCodelInterval
	}
	return c.CodelInterval
}

// take removes and returns the attempt the queue hands out at step d of
// cycle t under discipline d with codel interval n; Len must be > 0.
// adaptive-lifo reads the queue's empty history once.
func (q *fifo) take(d Discipline, t, n int64) packed {
	if d == Lifo || d == AdaptiveLifo && q.standing(t, n) {
		return q.popBack(t)
	}
	return q.popFront(t)
}

// popAhead is popFront for the shortcuts that queue a stretch's arrivals
// before its dispatches (a window, a saturated run): a dispatch at t that
// leaves the oldest remaining attempt one that joined after t had, in
// time's order, emptied the queue at t until that attempt joined. Those
// shortcuts queue only attempts that join at their arrival cycle.
//
// A ring with no requeued head (a per-server window's usual queue) is
// taken here as popFront takes it, without its call: a window pops each
// of its requests here.
func (q *fifo) popAhead(t int64) packed {
	if q.blk == nil && q.front == 0 {
		p := q.buf[q.head]
		q.head = (q.head + 1) & (len(q.buf) - 1)
		if q.n--; q.n == 0 {
			q.emptied = t // emptying
		} else if a := q.buf[q.head].arrival(); a > t {
			q.emptied, q.since = t, a
		}
		return p
	}
	p := q.popFront(t)
	if q.n > 0 {
		if a := q.at(0).arrival(); a > t {
			q.emptied, q.since = t, a
		}
	}
	return p
}

// historyDigest hashes the empty history of the balancer's queues that
// hold an attempt (an empty queue's is read only when it fills again, in a
// later cycle, and then afresh).
func (b *Balancer) historyDigest(put func(int64)) {
	if b.queue.n > 0 {
		put(b.queue.since)
	}
	for i := range b.sq {
		if q := &b.sq[i]; q.n > 0 {
			put(int64(b.idOf(i + 1))) // by id: compaction renumbers slots
			put(q.since)
		}
	}
}
