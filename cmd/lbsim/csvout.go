package main

import (
	"encoding/csv"
	"io"
	"math"
	"regexp"
	"strconv"
)

// csvWriter is the one CSV writer of lbsim's outputs: every cell is made
// safe for a spreadsheet by OWASP's rule (csvCell), so a label or a value
// read from a results file cannot become a formula.
type csvWriter struct{ *csv.Writer }

func newCSV(w io.Writer) csvWriter { return csvWriter{csv.NewWriter(w)} }

// Write writes one row, each cell through csvCell.
func (cw csvWriter) Write(rec []string) error {
	safe := make([]string, len(rec))
	for i, cell := range rec {
		safe[i] = csvCell(cell)
	}
	return cw.Writer.Write(safe)
}

// plainNumber matches a decimal number, which a spreadsheet reads as a
// number and never as a formula.
var plainNumber = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// csvCell makes a cell safe by OWASP's rule for CSV injection: a cell
// that starts with =, +, -, @, a tab or a carriage return (a spreadsheet
// would read a formula) is prefixed with a single quote, unless it is a
// plain number (-1.5, the difference column's).
func csvCell(s string) string {
	if s == "" || plainNumber.MatchString(s) {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}

// The CSV forms of compare's and size's tables (--csv FILE|-): one row per
// variant and metric (or objective), numbers in full precision, an empty
// cell where there is no value, so a spreadsheet or a script reads them
// without parsing the aligned text.

// csvNumber writes x in full precision; "" for none (NaN) and "inf" for an
// overloaded pool.
func csvNumber(x float64) string {
	switch {
	case math.IsNaN(x):
		return ""
	case math.IsInf(x, 1):
		return "inf"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// writeCSV writes the comparison: variant, metric (the summary key), the
// value (or mean), the 95% interval with replications, and the paired
// difference from the first variant with its interval.
func (cmp *comparison) writeCSV(w io.Writer) error {
	cw := newCSV(w)
	cw.Write([]string{"variant", "metric", "mean", "low", "high", "difference", "difference_low", "difference_high"})
	none := math.NaN()
	for _, v := range cmp.Variants {
		for _, m := range cmp.shown() {
			row := []float64{none, none, none, none, none, none}
			if v.Summary != nil {
				row[0] = m.Value(v.Summary)
			} else {
				iv := v.Metrics[m.Key]
				row[0], row[1], row[2] = iv.Mean, iv.Low, iv.High
				if d, ok := v.Difference[m.Key]; ok {
					row[3], row[4], row[5] = d.Mean, d.Low, d.High
				}
			}
			rec := []string{v.Label, m.Key}
			for _, x := range row {
				rec = append(rec, csvNumber(x))
			}
			cw.Write(rec)
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeCSV writes the sizing: a row per variant and objective, with the
// servers found (0 when not met up to --max), the objective's mean and
// upper bound at c and at c − 1 (empty where not evaluated) and the runs.
func (s *sizing) writeCSV(w io.Writer) error {
	cw := newCSV(w)
	cw.Write([]string{"variant", "servers", "not_met_up_to", "objective", "value", "mean", "upper", "holds", "mean_below", "upper_below", "runs"})
	for _, v := range s.Variants {
		for i, ob := range s.Objectives {
			rec := []string{v.Label, strconv.Itoa(v.Servers), "", ob.Key, csvNumber(ob.Value), "", "", "", "", "", strconv.Itoa(v.Runs)}
			if v.Servers == 0 {
				rec[2] = strconv.Itoa(v.NotMetUpTo)
			}
			if i < len(v.At) {
				rec[5], rec[6], rec[7] = csvNumber(v.At[i].Mean), csvNumber(v.At[i].Upper), strconv.FormatBool(v.At[i].Holds)
			}
			if i < len(v.Below) {
				rec[8], rec[9] = csvNumber(v.Below[i].Mean), csvNumber(v.Below[i].Upper)
			}
			cw.Write(rec)
		}
	}
	cw.Flush()
	return cw.Error()
}
