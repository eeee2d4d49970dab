package sim

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// TraceRow is one request of a recorded trace.
type TraceRow struct {
	Cycle int64 // arrival cycle; 0 = initial queue
	Src   uint32
	Dst   uint32
	Time  uint32
	Type  Type
}

// MaxTraceRows bounds the number of rows a trace may hold.
const MaxTraceRows = 50_000_000

// TraceError reports a bad trace line.
type TraceError struct {
	Line int // 1-based line number in the file
	Msg  string
}

func (e *TraceError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// ParseTrace reads a CSV trace with the header cycle,src,dst,time[,type]
// (the columns may come in any order; type defaults to P). Rows must come in
// non-decreasing cycle order. The first problem is returned as a
// *TraceError naming the line.
func ParseTrace(r io.Reader) ([]TraceRow, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, &TraceError{Line: 1, Msg: "empty file: want the header cycle,src,dst,time,type"}
	}
	if err != nil {
		return nil, csvError(err)
	}
	hline, _ := cr.FieldPos(0) // blank lines before the header are skipped
	col := map[string]int{"cycle": -1, "src": -1, "dst": -1, "time": -1, "type": -1}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		j, ok := col[h]
		if !ok && !textual(h) {
			return nil, &TraceError{Line: hline, Msg: "not text: a trace is a CSV file with the header cycle,src,dst,time[,type] (a binary file such as a snapshot is replayed with lbsim replay FILE)"}
		}
		if !ok {
			return nil, &TraceError{Line: hline, Msg: fmt.Sprintf("unknown column %q: the header is cycle,src,dst,time and optionally type", quoted(h))}
		}
		if j >= 0 {
			return nil, &TraceError{Line: hline, Msg: fmt.Sprintf("column %q appears twice", quoted(h))}
		}
		col[h] = i
	}
	for _, need := range []string{"cycle", "src", "dst", "time"} {
		if col[need] < 0 {
			return nil, &TraceError{Line: hline, Msg: fmt.Sprintf("missing column %q: the header is cycle,src,dst,time and optionally type", quoted(need))}
		}
	}
	var rows []TraceRow
	last := int64(0)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, csvError(err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(header) {
			return nil, &TraceError{Line: line, Msg: fmt.Sprintf("%d fields, want %d like the header", len(rec), len(header))}
		}
		if len(rows) >= MaxTraceRows {
			return nil, &TraceError{Line: line, Msg: fmt.Sprintf("more than %d rows", MaxTraceRows)}
		}
		row, msg := parseTraceRow(rec, col)
		if msg != "" {
			return nil, &TraceError{Line: line, Msg: msg}
		}
		if row.Cycle < last {
			return nil, &TraceError{Line: line, Msg: fmt.Sprintf("cycle %d comes after cycle %d: rows must be in non-decreasing cycle order", row.Cycle, last)}
		}
		last = row.Cycle
		rows = append(rows, row)
	}
}

func parseTraceRow(rec []string, col map[string]int) (TraceRow, string) {
	var row TraceRow
	c, err := strconv.ParseInt(strings.TrimSpace(rec[col["cycle"]]), 10, 64)
	if err != nil || c < 0 {
		return row, fmt.Sprintf("cycle %q: want a whole number ≥ 0", quoted(rec[col["cycle"]]))
	}
	row.Cycle = c
	if row.Src, err = ParseIPv4(strings.TrimSpace(rec[col["src"]])); err != nil {
		return row, "src: " + err.Error()
	}
	if row.Dst, err = ParseIPv4(strings.TrimSpace(rec[col["dst"]])); err != nil {
		return row, "dst: " + err.Error()
	}
	tm, err := strconv.ParseInt(strings.TrimSpace(rec[col["time"]]), 10, 64)
	if err != nil || tm < 1 || tm > MaxTaskTime {
		return row, fmt.Sprintf("time %q: want a whole number of cycles from 1 to %d", quoted(rec[col["time"]]), MaxTaskTime)
	}
	row.Time = uint32(tm)
	if i := col["type"]; i >= 0 {
		s := strings.TrimSpace(rec[i])
		if s != "" {
			if row.Type, err = ParseType(s); err != nil {
				return row, err.Error()
			}
		}
	}
	return row, ""
}

func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &TraceError{Line: pe.Line, Msg: pe.Err.Error()}
	}
	return err
}

// textual reports whether s is valid UTF-8 without control characters, as
// any line of a text file is.
func textual(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < ' ' && r != '\t' || r == 0x7f {
			return false
		}
	}
	return true
}
