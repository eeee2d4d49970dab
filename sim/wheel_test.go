package sim

import (
	"testing"

	"pgregory.net/rapid"
)

// TestWheelNextMatchesScan fills wheels of 64 to 2^16 buckets with entries
// near a moving clock and takes some: next, and seek through the summary,
// must find the same first cycle, wrapping around, as a bucket by bucket
// scan of has.
func TestWheelNextMatchesScan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var w wheel
		w.fit(rapid.Int64Range(1, 1<<16-1).Draw(t, "span"))
		size := w.mask + 1
		now := rapid.Int64Range(0, 1<<40).Draw(t, "now")
		for range rapid.IntRange(0, 60).Draw(t, "ops") {
			switch rapid.IntRange(0, 3).Draw(t, "op") {
			case 0, 1:
				w.add(now+rapid.Int64Range(1, size-1).Draw(t, "ahead"), 1)
			case 2:
				if c := w.next(now+1, now+size-1); c < now+size {
					w.take(c)
				}
			case 3:
				now += rapid.Int64Range(0, size).Draw(t, "advance")
				for c := w.next(now-size+1, now); c <= now; c = w.next(c+1, now) {
					w.take(c) // what the clock has passed is read
				}
			}
			from := now + rapid.Int64Range(1, size).Draw(t, "from")
			to := from + rapid.Int64Range(-1, 2*size).Draw(t, "span")
			want := to + 1
			for c := from; c <= to && c < from+size; c++ {
				if w.has(c) {
					want = c
					break
				}
			}
			if got := w.next(from, to); got != want {
				t.Fatalf("next(%d, %d) = %d, want %d (size %d)", from, to, got, want, size)
			}
			if got := w.seek(from, to); got != want {
				t.Fatalf("seek(%d, %d) = %d, want %d (size %d)", from, to, got, want, size)
			}
		}
	})
}
