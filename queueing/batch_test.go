package queueing

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestBatchMeansKnownData(t *testing.T) {
	tests := []struct {
		name    string
		size    int          // 0: feed with AddBatch only
		obs     []float64    // fed with Add
		batches [][2]float64 // (sum, n) fed with AddBatch
		want    Interval     // Mean, HalfWidth, StdErr, T, Batches are checked
	}{
		{
			// Batch means 1 … 5: mean 3, s² = (4+1+0+1+4)/4 = 2.5,
			// s/√5 = √0.5, t(4) = 2.776445105.
			name:    "batch means 1 to 5",
			batches: [][2]float64{{1, 1}, {4, 2}, {9, 3}, {8, 2}, {5, 1}},
			want: Interval{Mean: 3, StdErr: math.Sqrt(0.5), T: 2.776445105,
				HalfWidth: 2.776445105 * math.Sqrt(0.5), Batches: 5},
		},
		{
			// Batches of 3: (2,4,6) → 4, (1,1,1) → 1, (5,6,7) → 6, and 9 is an
			// open batch that is left out. Mean 11/3; squared deviations
			// 1/9 + 64/9 + 49/9 = 38/3, s² = 19/3, s/√3 = √19/3, t(2) = 4.30265273.
			name: "observations in batches of 3",
			size: 3,
			obs:  []float64{2, 4, 6, 1, 1, 1, 5, 6, 7, 9},
			want: Interval{Mean: 11.0 / 3, StdErr: math.Sqrt(19) / 3, T: 4.302652730,
				HalfWidth: 4.302652730 * math.Sqrt(19) / 3, Batches: 3},
		},
		{
			// Identical batches: no spread, a zero-width interval.
			name:    "no spread",
			batches: [][2]float64{{20, 4}, {10, 2}, {5, 1}},
			want:    Interval{Mean: 5, StdErr: 0, T: 4.302652730, HalfWidth: 0, Batches: 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b *BatchMeans
			if tt.size > 0 {
				var err error
				if b, err = NewBatchMeans(tt.size); err != nil {
					t.Fatal(err)
				}
			} else {
				b = &BatchMeans{}
			}
			for _, x := range tt.obs {
				if err := b.Add(x); err != nil {
					t.Fatalf("Add(%g): %v", x, err)
				}
			}
			for _, sn := range tt.batches {
				if err := b.AddBatch(sn[0], int(sn[1])); err != nil {
					t.Fatalf("AddBatch(%g, %g): %v", sn[0], sn[1], err)
				}
			}
			got, err := b.Interval()
			if err != nil {
				t.Fatalf("Interval(): %v", err)
			}
			const tol = 1e-12
			if got.Batches != tt.want.Batches || b.Batches() != tt.want.Batches {
				t.Errorf("Batches = %d (method %d), want %d", got.Batches, b.Batches(), tt.want.Batches)
			}
			for _, ch := range []struct {
				name      string
				got, want float64
			}{
				{"Mean", got.Mean, tt.want.Mean},
				{"StdErr", got.StdErr, tt.want.StdErr},
				{"T", got.T, tt.want.T},
				{"HalfWidth", got.HalfWidth, tt.want.HalfWidth},
				{"Low", got.Low, tt.want.Mean - tt.want.HalfWidth},
				{"High", got.High, tt.want.Mean + tt.want.HalfWidth},
			} {
				if !near(ch.got, ch.want, tol) {
					t.Errorf("%s = %.17g, want %.17g", ch.name, ch.got, ch.want)
				}
			}
		})
	}
}

func TestBatchMeansErrors(t *testing.T) {
	if _, err := NewBatchMeans(0); !errors.Is(err, ErrInvalid) {
		t.Errorf("NewBatchMeans(0) error = %v, want ErrInvalid", err)
	}
	var zero BatchMeans
	if err := zero.Add(1); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "NewBatchMeans") {
		t.Errorf("zero BatchMeans Add error = %v, want ErrInvalid naming NewBatchMeans", err)
	}

	tests := []struct {
		name    string
		batches [][2]float64
		msg     string
	}{
		{"no batches", nil, "closed batches = 0"},
		{"one batch", [][2]float64{{3, 1}}, "closed batches = 1"},
	}
	for _, tt := range tests {
		b := &BatchMeans{}
		for _, sn := range tt.batches {
			if err := b.AddBatch(sn[0], int(sn[1])); err != nil {
				t.Fatal(err)
			}
		}
		got, err := b.Interval()
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.msg) ||
			!strings.Contains(err.Error(), "at least 2 batches") {
			t.Errorf("%s: Interval() error = %v, want ErrInvalid mentioning %q and at least 2 batches", tt.name, err, tt.msg)
		}
		if got != (Interval{}) {
			t.Errorf("%s: Interval() = %+v with an error, want zero", tt.name, got)
		}
	}

	// An open batch does not count: 2 observations with size 2 make one batch.
	b, _ := NewBatchMeans(2)
	for _, x := range []float64{1, 2, 3} {
		if err := b.Add(x); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Interval(); !errors.Is(err, ErrInvalid) {
		t.Errorf("one closed and one open batch: Interval() error = %v, want ErrInvalid", err)
	}

	bad := []struct {
		name string
		f    func(*BatchMeans) error
	}{
		{"Add NaN", func(b *BatchMeans) error { return b.Add(math.NaN()) }},
		{"Add +Inf", func(b *BatchMeans) error { return b.Add(math.Inf(1)) }},
		{"Add overflowing sum", func(b *BatchMeans) error {
			_ = b.Add(math.MaxFloat64) // fine on its own
			return b.Add(math.MaxFloat64)
		}},
		{"AddBatch n = 0", func(b *BatchMeans) error { return b.AddBatch(1, 0) }},
		{"AddBatch NaN sum", func(b *BatchMeans) error { return b.AddBatch(math.NaN(), 3) }},
		{"AddBatch -Inf sum", func(b *BatchMeans) error { return b.AddBatch(math.Inf(-1), 3) }},
	}
	for _, tt := range bad {
		b, _ := NewBatchMeans(5)
		if err := tt.f(b); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: error = %v, want ErrInvalid", tt.name, err)
		}
		if b.Batches() != 0 {
			t.Errorf("%s: a bad value closed a batch", tt.name)
		}
	}

	huge := &BatchMeans{}
	for _, s := range []float64{math.MaxFloat64, -math.MaxFloat64, math.MaxFloat64} {
		if err := huge.AddBatch(s, 1); err != nil {
			t.Fatal(err)
		}
	}
	if iv, err := huge.Interval(); !errors.Is(err, ErrInvalid) {
		t.Errorf("overflowing batch means: Interval() = %+v, %v; want ErrInvalid", iv, err)
	}
}

func TestTQuantile975(t *testing.T) {
	// Reference values computed to 10 digits from the regularised incomplete
	// beta function (mpmath), independently of the table.
	tests := []struct {
		dof  int
		want float64
		tol  float64
	}{
		{1, 12.70620474, 1e-8},
		{4, 2.776445105, 1e-9},
		{10, 2.228138852, 1e-9},
		{30, 2.042272456, 1e-9},
		{31, 2.039513446, 1e-7},
		{35, 2.030107928, 1e-7},
		{40, 2.021075390, 1e-7},
		{50, 2.008559112, 1e-7},
		{60, 2.000297822, 1e-7},
		{80, 1.990063421, 1e-7},
		{100, 1.983971519, 1e-7},
		{120, 1.979930405, 1e-7},
		{200, 1.971896224, 1e-7},
		{1000, 1.962339081, 1e-7},
		{1 << 40, z975, 1e-9},
	}
	prev := math.Inf(1)
	for _, tt := range tests {
		got := TQuantile975(tt.dof)
		if math.Abs(got-tt.want) > tt.tol {
			t.Errorf("TQuantile975(%d) = %.10f, want %.10f (±%g)", tt.dof, got, tt.want, tt.tol)
		}
		if got >= prev {
			t.Errorf("TQuantile975(%d) = %g is not below the value for fewer degrees of freedom (%g)", tt.dof, got, prev)
		}
		prev = got
	}
	for dof := 2; dof <= 500; dof++ {
		if TQuantile975(dof) >= TQuantile975(dof-1) {
			t.Fatalf("TQuantile975 does not decrease at %d degrees of freedom", dof)
		}
	}
	if got := TQuantile975(0); !math.IsInf(got, 1) {
		t.Errorf("TQuantile975(0) = %g, want +Inf", got)
	}
}
