package sim

import "fmt"

// EventKind says what happened.
type EventKind uint8

// The kinds of events, in the order a request meets them.
const (
	Arrive    EventKind = iota // a request passed the firewall and joined the queue
	Reject                     // the firewall rejected a request
	Discard                    // a request found the queue full
	Dispatch                   // a request left the queue for a server
	Complete                   // a server finished a request
	ScaleUp                    // a server was added
	ScaleDown                  // an idle server was removed
	Retire                     // a busy server was marked retiring
	Leave                      // a retiring server finished and left the pool
	Down                       // a server failed (fault injection)
	Up                         // a failed server came back, idle
	Requeue                    // a failed server's request went back to the head of the queue
	Error                      // an attempt on a failing server ended in error
	GrayFault                  // a gray fault changed a server's state (slow, fail, hang, heal)
	TimedOut                   // an attempt's client gave up on it (timeout): Server is where it was in service, 0 if queued
	Retry                      // a retry of a request arrived (Server: where it was routed, per-server)
	GiveUp                     // a request ended without success: its last attempt failed or timed out, or the budget refused a retry
	Eject                      // a server was ejected (health checks or outlier ejection)
	Restore                    // an ejected server was restored
	Ready                      // a warming server took its place among the candidates
	Replace                    // a server down or ejected too long left the pool
	Shed                       // a queue shed an attempt that had waited too long (Server: its queue's, 0 for the central one)
	Throttled                  // a client throttled its own attempt before routing it
	Cancel                     // an attempt was cancelled (fan-out): Server is where it was in service, 0 if queued
	Hedge                      // a hedge of a part was sent (Server: where it was routed)
	numEventKinds
)

var eventNames = [numEventKinds]string{"arrive", "reject", "discard", "dispatch", "complete", "scale-up", "scale-down", "retire", "leave", "down", "up", "requeue", "error", "gray", "timed-out", "retry", "give-up", "eject", "restore", "ready", "replace", "shed", "throttled", "cancel", "hedge"}

// String returns the kind's lower-case name, as logs print it.
func (k EventKind) String() string {
	if k < numEventKinds {
		return eventNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is one thing that happened during a cycle. Request is set for the
// request events, Server for the server ones and Dispatch/Complete (and, in
// per-server mode, for Arrive and Discard: the server the request was
// routed to, 0 for the lobby); Wait is the queueing time of a Dispatch.
type Event struct {
	Cycle    int64
	Kind     EventKind
	Balancer int // index in Model.Balancers: 0, or 1 for S in a switch
	Server   int
	Wait     int64
	Request  Request
}

// String formats e for a log line.
func (e Event) String() string {
	switch e.Kind {
	case Arrive, Reject, Discard:
		return fmt.Sprintf("%8d %-10s %v", e.Cycle, e.Kind, e.Request)
	case Dispatch:
		return fmt.Sprintf("%8d %-10s %v → server %d (waited %d)", e.Cycle, e.Kind, e.Request, e.Server, e.Wait)
	case Complete, Requeue, TimedOut, Retry, GiveUp, Shed, Throttled:
		return fmt.Sprintf("%8d %-10s %v on server %d", e.Cycle, e.Kind, e.Request, e.Server)
	}
	return fmt.Sprintf("%8d %-10s server %d", e.Cycle, e.Kind, e.Server)
}
