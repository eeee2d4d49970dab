//go:build unix

package sim

import "syscall"

// cpuNanos returns the CPU time (user and system) the process has used so
// far, in nanoseconds, and true; benchmarks on a shared host report it
// beside the wall time, which other work on the host stretches.
func cpuNanos() (int64, bool) {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0, false
	}
	return u.Utime.Nano() + u.Stime.Nano(), true
}
