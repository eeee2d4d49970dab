package queueing

import (
	"math"
	"strconv"
)

// BatchMeans turns a long, autocorrelated series of observations (the waits
// of successive requests, say) into an honest confidence interval for their
// mean. The series is cut into batches; if batches are long enough, their
// means are nearly independent and nearly normal, so a Student t interval
// over the batch means is valid even though single observations are not
// independent. Drop the warm-up part of a run before feeding it.
//
// Feed it either single observations with [BatchMeans.Add] (every size of
// them, as given to [NewBatchMeans], close a batch) or whole batches with [BatchMeans.AddBatch], or both.
// The zero value accepts AddBatch only; use [NewBatchMeans] to use Add.
// A BatchMeans is not safe for concurrent use.
type BatchMeans struct {
	size  int       // observations per batch for Add; 0 if Add is not in use
	sum   float64   // sum of the observations of the open batch
	n     int       // number of observations in the open batch
	means []float64 // means of the closed batches, in order
}

// NewBatchMeans returns a BatchMeans whose [BatchMeans.Add] closes a batch
// every size observations. It returns an [*InputError] (matching
// [ErrInvalid]) when size < 1.
func NewBatchMeans(size int) (*BatchMeans, error) {
	if size < 1 {
		return nil, &InputError{
			Name:    "batch size",
			Value:   strconv.Itoa(size),
			Allowed: "a batch must hold at least 1 observation",
		}
	}
	return &BatchMeans{size: size}, nil
}

// Add records one observation; every Size observations close a batch. A
// batch still open when [BatchMeans.Interval] is called is left out, so that
// all batches weigh the same. Cost: O(1) amortised.
//
// It returns an [*InputError] (matching [ErrInvalid]) when x is NaN or ±Inf,
// when the BatchMeans was not made by [NewBatchMeans], or when the batch's
// sum overflows; the observation is then not recorded.
func (b *BatchMeans) Add(x float64) error {
	if b.size < 1 {
		return &InputError{
			Name:    "batch size",
			Value:   "unset",
			Allowed: "make the BatchMeans with NewBatchMeans(size) to use Add, or feed whole batches with AddBatch",
		}
	}
	if !finite(x) {
		return &InputError{Name: "observation", Value: exact(x), Allowed: "observations must be finite numbers"}
	}
	s := b.sum + x
	if !finite(s) {
		return &InputError{Name: "batch sum", Value: exact(s), Allowed: "the observations of a batch must add up to a finite number"}
	}
	b.sum, b.n = s, b.n+1
	if b.n == b.size {
		b.means = append(b.means, b.sum/float64(b.n))
		b.sum, b.n = 0, 0
	}
	return nil
}

// AddBatch records a whole batch of n observations that add up to sum (so
// its mean is sum/n), for callers that batch by time, such as "all requests
// dispatched in cycles 10,000 to 19,999". The batches should be of similar
// size. An open batch of [BatchMeans.Add] is not affected. Cost: O(1)
// amortised.
//
// It returns an [*InputError] (matching [ErrInvalid]) when n < 1 or sum is
// NaN or ±Inf; the batch is then not recorded.
func (b *BatchMeans) AddBatch(sum float64, n int) error {
	if n < 1 {
		return &InputError{Name: "batch count n", Value: strconv.Itoa(n), Allowed: "a batch must hold at least 1 observation"}
	}
	if !finite(sum) {
		return &InputError{Name: "batch sum", Value: exact(sum), Allowed: "the sum must be a finite number"}
	}
	b.means = append(b.means, sum/float64(n))
	return nil
}

// Batches returns the number of closed batches so far.
func (b *BatchMeans) Batches() int { return len(b.means) }

// Interval is a mean with its 95% confidence interval.
type Interval struct {
	Mean      float64 // the mean of the batch means
	Low, High float64 // Mean − HalfWidth and Mean + HalfWidth
	HalfWidth float64 // T · StdErr
	StdErr    float64 // the standard error: sample standard deviation of the batch means / √batches
	T         float64 // the Student t 97.5% quantile used, for Batches − 1 degrees of freedom
	Batches   int     // the number of batches used
}

// Interval returns the mean of the batch means and a 95% Student t interval
// around it: Mean ± t·s/√n, where n is the number of closed batches, s the
// sample standard deviation of their means (divisor n − 1) and t the 97.5%
// quantile of Student's t with n − 1 degrees of freedom (see [TQuantile975]).
// Cost: O(n).
//
// It returns an [*InputError] (matching [ErrInvalid]) when fewer than 2
// batches are closed (no spread can be estimated from one batch) or when the
// values are so large that the computation overflows.
func (b *BatchMeans) Interval() (Interval, error) {
	n := len(b.means)
	if n < 2 {
		return Interval{}, &InputError{
			Name:    "closed batches",
			Value:   strconv.Itoa(n),
			Allowed: "at least 2 batches are needed for an interval; run longer or use smaller batches",
		}
	}
	fn := float64(n)
	sum := 0.0
	for _, m := range b.means {
		sum += m
	}
	mean := sum / fn
	ss := 0.0 // two passes: the sum of squared deviations loses no precision to cancellation
	for _, m := range b.means {
		d := m - mean
		ss += float64(d * d)
	}
	se := math.Sqrt(ss / (fn - 1) / fn)
	t := TQuantile975(n - 1)
	half := float64(t * se)
	iv := Interval{Mean: mean, Low: mean - half, High: mean + half, HalfWidth: half, StdErr: se, T: t, Batches: n}
	for _, x := range [...]float64{iv.Mean, iv.Low, iv.High, iv.HalfWidth} {
		if !finite(x) {
			return Interval{}, &InputError{
				Name:    "batch means",
				Value:   "too large",
				Allowed: "their sum and spread must fit in float64; rescale the observations",
			}
		}
	}
	return iv, nil
}

// z975 is the 97.5% quantile of the standard normal distribution.
const z975 = 1.959963984540054

// TQuantile975 returns the 97.5% quantile of Student's t distribution with
// dof degrees of freedom: the t of a two-sided 95% interval. For 1 … 30 it
// comes from a table (10 significant digits); above 30 from the
// Cornish–Fisher expansion in 1/dof around the normal quantile
// z = 1.959964 (four correction terms, error below 1e-7), which tends to z
// as dof grows. It uses only arithmetic, so it is the same on every
// platform. For dof < 1 it returns +Inf: no interval is possible.
func TQuantile975(dof int) float64 {
	if dof < 1 {
		return math.Inf(1)
	}
	// The 97.5% quantiles for 1 … 30 degrees of freedom, to 10 significant
	// digits (a local array, so no global can be changed).
	table := [...]float64{
		12.70620474, 4.302652730, 3.182446305, 2.776445105, 2.570581836,
		2.446911851, 2.364624252, 2.306004135, 2.262157163, 2.228138852,
		2.200985160, 2.178812830, 2.160368656, 2.144786688, 2.131449546,
		2.119905299, 2.109815578, 2.100922040, 2.093024054, 2.085963447,
		2.079613845, 2.073873068, 2.068657610, 2.063898562, 2.059538553,
		2.055529439, 2.051830516, 2.048407142, 2.045229642, 2.042272456,
	}
	if dof <= len(table) {
		return table[dof-1]
	}
	z := z975
	z2 := z * z
	z3 := z2 * z
	z5 := z3 * z2
	z7 := z5 * z2
	z9 := z7 * z2
	v := float64(dof)
	v2 := v * v
	// Every product that is then added is rounded with float64(…), so no
	// platform fuses them into a multiply-add.
	return z +
		(z3+z)/float64(4*v) +
		(float64(5*z5)+float64(16*z3)+float64(3*z))/float64(96*v2) +
		(float64(3*z7)+float64(19*z5)+float64(17*z3)-float64(15*z))/float64(384*v2*v) +
		(float64(79*z9)+float64(776*z7)+float64(1482*z5)-float64(1920*z3)-float64(945*z))/float64(92160*v2*v2)
}
