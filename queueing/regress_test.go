package queueing

import (
	"math"
	"testing"
)

// TestGoldenBits pins the exact bits of a few results, so that a change of
// formula, of evaluation order, or a platform that fuses multiply-adds is
// caught: the package promises bit-identical results natively and in
// WebAssembly. The values were computed on linux/amd64; run this test with
// GOOS=js GOARCH=wasm too.
func TestGoldenBits(t *testing.T) {
	must := func(x float64, err error) float64 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	q := MMC{Servers: 5, Lambda: 0.04, MeanService: 100}
	pooled, err := q.Metrics()
	if err != nil {
		t.Fatal(err)
	}
	split, err := q.Split()
	if err != nil {
		t.Fatal(err)
	}
	var b BatchMeans
	for _, w := range [][2]float64{{5200, 100}, {6100, 110}, {4900, 95}} {
		if err := b.AddBatch(w[0], int(w[1])); err != nil {
			t.Fatal(err)
		}
	}
	iv, err := b.Interval()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		got  float64
		want uint64
	}{
		{"ErlangB(10000, 9900)", must(ErlangB(10_000, 9_900)), 0x3f6769ed1be0f855}, // 0.0028581267388565848
		{"ErlangC(10000, 9900)", must(ErlangC(10_000, 9_900)), 0x3fcc83f453e32dc8}, // 0.22277692886414813
		{"ErlangC(3, 2.7)", must(ErlangC(3, 2.7)), 0x3fea255d279873cc},             // 0.81706102117061041
		{"pooled PWait", pooled.PWait, 0x3fe1bb4a4046ed29},                         // 0.55411255411255411
		{"pooled Wq", pooled.Wq, 0x404bb4a4046ed290},                               // 55.411255411255411
		{"pooled L", pooled.L, 0x4018dda520237695},                                 // 6.2164502164502169
		{"split Wq", split.Wq, 0x4079000000000000},                                 // 400
		{"batch Mean", iv.Mean, 0x404a816dd4b88c74},                                // 53.011164274322169
		{"batch Low", iv.Low, 0x4047dd461d4451d0},                                  // 47.728702219351931
		{"batch High", iv.High, 0x404d25958c2cc718},                                // 58.293626329292408
		{"TQuantile975(31)", TQuantile975(31), 0x400050ec6978360c},                 // 2.0395134200869105
		{"TQuantile975(1000)", TQuantile975(1000), 0x3fff65bda9fcfe73},             // 1.9623390808264076
	}
	for _, tt := range tests {
		if got := math.Float64bits(tt.got); got != tt.want {
			t.Errorf("%s = %.17g (%#016x), want %.17g (%#016x)",
				tt.name, tt.got, got, math.Float64frombits(tt.want), tt.want)
		}
	}
}
