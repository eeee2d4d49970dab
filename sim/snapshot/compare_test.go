package snapshot

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// twoLanes records round-robin and p2c on the same requests.
func twoLanes(t testing.TB) Comparison {
	t.Helper()
	base := sim.DefaultConfig()
	base.Seed, base.Cycles, base.Queues, base.Speeds = 21, 3000, sim.PerServer, []sim.Speed{200, 100, 50}
	rr, p2c := base.Clone(), base.Clone()
	rr.Policy, p2c.Policy = sim.RoundRobin, sim.P2C
	c, err := RecordComparison([]LaneSpec{
		{Label: "round-robin", Config: rr, Changes: []sim.Change{{Cycle: 1000, Setting: sim.SetRate, Value: 900_000}}},
		{Label: "p2c", Config: p2c, Changes: []sim.Change{{Cycle: 1000, Setting: sim.SetRate, Value: 900_000}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestComparisonRoundTrip: a comparison encodes to format 2, decodes to
// the same lanes, and every lane replays to its recorded summary; the
// lanes saw the same requests.
func TestComparisonRoundTrip(t *testing.T) {
	c := twoLanes(t)
	data, err := EncodeComparison(c)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := checkMagic(data); err != nil || v != FormatComparison {
		t.Fatalf("format %d, %v; want %d", v, err, FormatComparison)
	}
	got, err := DecodeComparison(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Lanes) != 2 || got.Lanes[0].Label != "round-robin" || got.Lanes[1].Label != "p2c" {
		t.Fatalf("lanes %v", got.Lanes)
	}
	for i := range got.Lanes {
		if !reflect.DeepEqual(got.Lanes[i].Summary, c.Lanes[i].Summary) || !reflect.DeepEqual(got.Lanes[i].Config, c.Lanes[i].Config) {
			t.Errorf("lane %d decoded differently", i)
		}
	}
	sums, err := VerifyComparison(got)
	if err != nil {
		t.Fatal(err)
	}
	if sums[0].Generated != sums[1].Generated || sums[0].Rejected != sums[1].Rejected || sums[0].AvgWait == sums[1].AvgWait {
		t.Errorf("lanes: generated %d/%d rejected %d/%d avg wait %v/%v: want the same requests, different waits",
			sums[0].Generated, sums[1].Generated, sums[0].Rejected, sums[1].Rejected, sums[0].AvgWait, sums[1].AvgWait)
	}
	// A share link of a comparison carries it whole.
	back, err := LinkData("https://lbsim.example/" + Fragment(data))
	if err != nil || string(back) != string(data) {
		t.Errorf("link round trip: %v", err)
	}
}

// TestComparisonAndSingleRuns: Decode refuses a comparison with
// ErrComparison; DecodeComparison reads a single run as one lane.
func TestComparisonAndSingleRuns(t *testing.T) {
	data, err := EncodeComparison(twoLanes(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(data); !errors.Is(err, ErrComparison) {
		t.Errorf("Decode(comparison) = %v, want ErrComparison", err)
	}
	single := smallSnapshot(t)
	c, err := DecodeComparison(single)
	if err != nil || len(c.Lanes) != 1 || c.Lanes[0].Label != "run" {
		t.Fatalf("DecodeComparison(single run) = %+v, %v", c, err)
	}
	if _, err := VerifyComparison(c); err != nil {
		t.Error(err)
	}
}

func TestComparisonLimits(t *testing.T) {
	c := twoLanes(t)
	for _, n := range []int{0, MaxLanes + 1} {
		var lanes []Lane
		for i := range n {
			lanes = append(lanes, c.Lanes[i%2])
		}
		if _, err := EncodeComparison(Comparison{Lanes: lanes}); err == nil || !strings.Contains(err.Error(), "1 to 4 runs") {
			t.Errorf("%d lanes: %v, want a refusal", n, err)
		}
	}
	long := c
	long.Lanes = append([]Lane{}, c.Lanes...)
	long.Lanes[0].Label = strings.Repeat("x", MaxLabel+1)
	if _, err := EncodeComparison(long); err == nil {
		t.Error("a 201-byte label was accepted")
	}
	// A lane whose payload is resealed with a fault naming a server that
	// does not exist still decodes (it is a valid change), and its replay
	// says where it diverges rather than panicking.
	data, _ := EncodeComparison(c)
	if _, err := DecodeComparison(data[:len(data)-3]); err == nil {
		t.Error("a cut comparison decoded")
	}
}

func FuzzDecodeComparison(f *testing.F) {
	data, err := EncodeComparison(twoLanes(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(smallSnapshot(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		c, err := DecodeComparison(data)
		if err != nil {
			return
		}
		again, err := EncodeComparison(c)
		if err != nil {
			t.Fatalf("a decoded comparison does not encode: %v", err)
		}
		if _, err := DecodeComparison(again); err != nil {
			t.Fatalf("re-encoded comparison does not decode: %v", err)
		}
	})
}
