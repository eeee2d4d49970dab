//go:build !unix

package sim

// cpuNanos reports no CPU time where the platform has no getrusage.
func cpuNanos() (int64, bool) { return 0, false }
