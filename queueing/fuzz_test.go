package queueing

import (
	"encoding/binary"
	"math"
	"testing"
)

// The fuzzers check the promises of the package doc for inputs a user can
// type: no panic, and never NaN or ±Inf without an error.

func FuzzErlang(f *testing.F) {
	f.Add(1, 1.0)
	f.Add(3, 2.7)
	f.Add(10_000, 9_900.0)
	f.Add(0, 1.0)
	f.Add(-5, -1.0)
	f.Add(2, math.NaN())
	f.Add(2, math.Inf(1))
	f.Add(5, 5.0)
	f.Add(1, 5e-324)
	f.Add(7, math.MaxFloat64)
	f.Fuzz(func(t *testing.T, c int, a float64) {
		b, err := ErlangB(c, a)
		if err == nil && !(b >= 0 && b <= 1) {
			t.Fatalf("ErlangB(%d, %g) = %g with no error, want a value in [0, 1]", c, a, b)
		}
		if err != nil && b != 0 {
			t.Fatalf("ErlangB(%d, %g) = %g with error %v, want 0", c, a, b, err)
		}
		cw, err := ErlangC(c, a)
		if err == nil && !(cw >= 0 && cw <= 1) {
			t.Fatalf("ErlangC(%d, %g) = %g with no error, want a value in [0, 1]", c, a, cw)
		}
		if math.IsNaN(cw) || math.IsInf(cw, 0) {
			t.Fatalf("ErlangC(%d, %g) = %g (error %v)", c, a, cw, err)
		}
		if err != nil && err.Error() == "" {
			t.Fatalf("ErlangC(%d, %g): empty error message", c, a)
		}
	})
}

func FuzzMMC(f *testing.F) {
	f.Add(3, 0.2, 10.0)
	f.Add(3, 270.0, 0.01)
	f.Add(5, 0.04, 100.0)
	f.Add(0, 0.1, 1.0)
	f.Add(2, 1e-300, 1.9999999999999996e300)
	f.Add(1, 1e200, 1e200)
	f.Add(4, math.NaN(), 1.0)
	f.Add(4, 0.1, math.Inf(1))
	f.Add(20, 0.0, 5e-324)
	f.Fuzz(func(t *testing.T, c int, lambda, m float64) {
		q := MMC{Servers: c, Lambda: lambda, MeanService: m}
		pooled, errP := q.Metrics()
		split, errS := q.Split()
		if (errP == nil) != (errS == nil) {
			t.Fatalf("%+v: Metrics error %v but Split error %v", q, errP, errS)
		}
		if errP != nil {
			if pooled != (Metrics{}) || split != (Metrics{}) {
				t.Fatalf("%+v: non-zero Metrics with an error", q)
			}
			return
		}
		for name, m := range map[string]Metrics{"Metrics": pooled, "Split": split} {
			for _, x := range [...]float64{m.OfferedLoad, m.Rho, m.PWait, m.Wq, m.Lq, m.W, m.L, m.Utilisation} {
				if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
					t.Fatalf("%+v.%s() = %+v: a value is NaN, infinite or negative", q, name, m)
				}
			}
			if m.Rho >= 1 || m.PWait > 1 {
				t.Fatalf("%+v.%s() = %+v: ρ ≥ 1 or P(wait) > 1 with no error", q, name, m)
			}
		}
		if pooled.Wq > split.Wq*(1+1e-9) {
			t.Fatalf("%+v: pooled Wq %g exceeds split Wq %g", q, pooled.Wq, split.Wq)
		}
	})
}

func FuzzBatchMeans(f *testing.F) {
	f.Add(2, []byte{})
	f.Add(1, binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, math.Float64bits(1)), math.Float64bits(3)))
	f.Add(1, binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, math.Float64bits(math.MaxFloat64)), math.Float64bits(-math.MaxFloat64)))
	f.Add(0, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, size int, data []byte) {
		if len(data) > 8*4096 {
			t.Skip("long inputs add nothing")
		}
		b, err := NewBatchMeans(size)
		if err != nil {
			if size >= 1 {
				t.Fatalf("NewBatchMeans(%d): %v", size, err)
			}
			b = &BatchMeans{}
		}
		for len(data) >= 8 {
			x := math.Float64frombits(binary.LittleEndian.Uint64(data))
			data = data[8:]
			before := b.Batches()
			if size >= 1 {
				err = b.Add(x)
			} else {
				err = b.AddBatch(x, 1)
			}
			if err != nil && b.Batches() != before {
				t.Fatalf("a rejected value %g (%v) closed a batch", x, err)
			}
		}
		iv, err := b.Interval()
		if err != nil {
			if iv != (Interval{}) {
				t.Fatalf("Interval() = %+v with error %v, want zero", iv, err)
			}
			return
		}
		for _, x := range [...]float64{iv.Mean, iv.Low, iv.High, iv.HalfWidth, iv.StdErr, iv.T} {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("Interval() = %+v: a value is NaN or infinite", iv)
			}
		}
		if !(iv.Low <= iv.Mean && iv.Mean <= iv.High) || iv.Batches != b.Batches() || iv.Batches < 2 {
			t.Fatalf("Interval() = %+v is inconsistent (%d batches)", iv, b.Batches())
		}
	})
}

func FuzzCheckFit(f *testing.F) {
	f.Add(5, 0.04, 100.0, "geometric", "", 0, uint8(0))
	f.Add(20, 0.45, 30.0, "uniform", "first-idle", 0, uint8(0b11))
	f.Add(0, math.NaN(), math.Inf(1), "", "least-conn", -1, uint8(0xff))
	f.Add(2, 1e-300, 1.9999999999999996e300, "geometric", "swrr", 10, uint8(0))
	f.Fuzz(func(t *testing.T, c int, lambda, m float64, service, policy string, queueCap int, flags uint8) {
		in := FitInput{
			Servers: c, Lambda: lambda, MeanService: m, Service: service, Policy: policy, QueueCap: queueCap,
			Autoscaling: flags&1 != 0, Wave: flags&2 != 0, Faults: flags&4 != 0, Trace: flags&8 != 0, Switch: flags&16 != 0,
		}
		fit := CheckFit(in)
		if fit.Applies != (len(fit.Reasons) == 0) {
			t.Fatalf("CheckFit(%+v) = %+v: Applies disagrees with Reasons", in, fit)
		}
		for _, s := range append(append([]string(nil), fit.Reasons...), fit.Caveats...) {
			if s == "" {
				t.Fatalf("CheckFit(%+v) gave an empty sentence", in)
			}
		}
		if _, err := (MMC{Servers: c, Lambda: lambda, MeanService: m}).Metrics(); fit.Applies && err != nil {
			t.Fatalf("CheckFit(%+v) applies, but Metrics fails: %v", in, err)
		}
		if fit.String() == "" {
			t.Fatal("empty String()")
		}
	})
}

func FuzzReneging(f *testing.F) {
	f.Add(10, 0.095, 100.0, 100.0)
	f.Add(3, 0.6, 4.0, 6.0)
	f.Add(2, 1.0, 3.0, 4.0)
	f.Add(1, 0.0, 1.0, 0.0)
	f.Add(2, 1e300, 1.0, 1e300)
	f.Add(4, 5e-324, 1e-300, 1e300)
	f.Add(0, 1.0, 1.0, 1.0)
	f.Add(3, math.NaN(), 1.0, 1.0)
	f.Add(3, 1.0, 1.0, math.Inf(1))
	f.Fuzz(func(t *testing.T, c int, lambda, m, tau float64) {
		q := Reneging{Servers: c, Lambda: lambda, MeanService: m, Patience: tau}
		check := func(name string, r RenegingMetrics, err error) {
			if err != nil {
				if r != (RenegingMetrics{}) && name == "Discrete" {
					t.Fatalf("%+v.%s: non-zero result with error %v", q, name, err)
				}
				if err.Error() == "" {
					t.Fatalf("%+v.%s: empty error message", q, name)
				}
				return
			}
			for _, x := range [...]float64{r.TimedOutQueued, r.TimedOutInService, r.Completed, r.PWait,
				r.WaitServed, r.WaitCompleted, r.ResponseCompleted, r.Busy} {
				if math.IsNaN(x) || math.IsInf(x, 0) || x < -1e-9 {
					t.Fatalf("%+v.%s() = %+v: a value is NaN, infinite or negative", q, name, r)
				}
			}
			if s := r.TimedOutQueued + r.TimedOutInService + r.Completed; math.Abs(s-1) > 1e-6 {
				t.Fatalf("%+v.%s() = %+v: shares add up to %g", q, name, r, s)
			}
		}
		r, err := q.Continuous()
		check("Continuous", r, err)
		// The chain costs the cube of its states: fuzz only small ones.
		if c >= 1 && c <= 8 && tau >= 1 && tau <= 20 {
			r, err = q.Discrete()
			check("Discrete", r, err)
		}
	})
}
