package sim

import "fmt"

// Type tells processing requests from streaming ones.
type Type uint8

// The request types.
const (
	Processing Type = iota // "P"
	Streaming              // "S"
)

// String returns "P" or "S".
func (t Type) String() string {
	if t == Streaming {
		return "S"
	}
	return "P"
}

// ParseType reads "P" or "S" (either case).
func ParseType(s string) (Type, error) {
	switch s {
	case "P", "p":
		return Processing, nil
	case "S", "s":
		return Streaming, nil
	}
	return 0, fmt.Errorf("type %q is not allowed: want P (processing) or S (streaming)", quoted(s))
}

// Request is one unit of work, or with fan-out one part of it (an
// attempt). It is 40 bytes; queues hold requests packed in 24 (packed).
type Request struct {
	ID      int64  // 1, 2, 3 … in generation order, rejected ones included
	Arrival int64  // the cycle it arrived (0 for the initial queue)
	Src     uint32 // source IPv4 address
	Dst     uint32 // destination IPv4 address
	Time    uint32 // processing time in cycles, ≥ 1
	Type    Type
	// Requeued is set once the request has been taken back from a failed
	// server; its Arrival is kept, and its next wait counts from the
	// cycle it was requeued.
	Requeued bool
	// Retry is set on a retry of the request (a later attempt, after one
	// that ended in error, timed out or was discarded); its Arrival is the
	// request's first, and its wait counts from the retry's arrival.
	Retry bool
	// Member is the balancer of a fleet (Config.Balancers) the attempt
	// was handed to, from 0: always 0 with a single balancer, and before
	// the attempt is routed.
	Member uint8
	// Part is the part (from 0) of a request with fan-out (Config.Fanout
	// > 1) the attempt carries out; 0 without fan-out.
	Part uint8
}

// String formats r for logs: "#12 10.0.0.1→192.0.2.9 P 17c @40".
func (r Request) String() string {
	return fmt.Sprintf("#%d %s→%s %v %dc @%d", r.ID, FormatIPv4(r.Src), FormatIPv4(r.Dst), r.Type, r.Time, r.Arrival)
}
