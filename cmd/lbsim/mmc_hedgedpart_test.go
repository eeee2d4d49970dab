package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim/mmc"
)

// TestTailTableHedgedPartP99: with hedging the text's tail table gives a
// hedged part's p99 (the first of its attempts to complete), as the
// JSON's hedged_part_p99 does, below one attempt's p50 / p99 named as
// such; without hedging it has a part's p50 / p99 and no hedged row.
func TestTailTableHedgedPartP99(t *testing.T) {
	for _, tc := range []struct {
		name       string
		hedgeAfter int
		want       []string
		not        string
	}{
		{"hedged", 62, []string{"one attempt's p50 / p99 (cycles)       31 / 207", "a hedged part's p99 (cycles)                 77"}, "a part's p50"},
		{"plain", 0, []string{"a part's p50 / p99 (cycles)            31 / 207"}, "hedged part"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lt := &mmc.LowLoadTail{PartP50: 31, PartP99: 207, RequestP50: 40, RequestP99: 120, Model: "a model"}
			if tc.hedgeAfter > 0 {
				lt.HedgedPartP99 = 77
			}
			tl := mmc.Tail{Fanout: 20, HedgeAfter: tc.hedgeAfter, HedgeMax: 1, LowLoad: lt}
			out := tailTable(tl, &mmc.Response{})
			lines := strings.Split(out, "\n")
			for i, l := range lines {
				lines[i] = strings.TrimRight(l, " ")
			}
			for _, w := range tc.want {
				if !slices.Contains(lines, w) {
					t.Errorf("tail table:\n%s\nwant the line %q", out, w)
				}
			}
			if strings.Contains(out, tc.not) {
				t.Errorf("tail table:\n%s\nwant no %q", out, tc.not)
			}
		})
	}
}
