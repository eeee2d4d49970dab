package sweep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// MaxLineBytes bounds one line of a results file; a longer line is refused
// rather than read into memory.
const MaxLineBytes = 1 << 20

// Line is one run's result: a line of a sweep's results file,
//
//	{"point": {NAME: value, …}, "replication": r, "seed": s, "flags": [F, …], "summary": {…}}
//
// where flags are the run flags every run of the sweep shares (the grid's
// Flags) and summary is exactly what `lbsim run --json` prints for the run.
type Line struct {
	Point       json.RawMessage `json:"point"`
	Replication int             `json:"replication"`
	Seed        uint64          `json:"seed"`
	Flags       []string        `json:"flags"`
	Summary     json.RawMessage `json:"summary"`
}

// AppendLine appends run's line, ending in a newline, with the grid's
// shared flags and summary (a JSON object) compacted.
func AppendLine(b []byte, run Run, flags []string, summary []byte) ([]byte, error) {
	b = append(b, `{"point":`...)
	b = run.Point.AppendJSON(b)
	b = append(b, `,"replication":`...)
	b = strconv.AppendInt(b, int64(run.Replication), 10)
	b = append(b, `,"seed":`...)
	b = strconv.AppendUint(b, run.Seed, 10)
	b = append(b, `,"flags":[`...)
	for i, f := range flags {
		if i > 0 {
			b = append(b, ',')
		}
		js, _ := json.Marshal(f)
		b = append(b, js...)
	}
	b = append(b, `],"summary":`...)
	var buf bytes.Buffer
	if err := json.Compact(&buf, summary); err != nil {
		return b, fmt.Errorf("the summary is not JSON: %v", err)
	}
	b = append(b, buf.Bytes()...)
	return append(b, "}\n"...), nil
}

// Key identifies a run within a sweep: its point (compacted JSON) and its
// replication.
type Key struct {
	Point       string
	Replication int
}

// Key returns the line's key.
func (l *Line) Key() Key {
	var buf bytes.Buffer
	json.Compact(&buf, l.Point)
	return Key{buf.String(), l.Replication}
}

// KeyOf returns run's key, equal to the Key of its line.
func KeyOf(run Run) Key { return Key{string(run.Point.AppendJSON(nil)), run.Replication} }

// ParseLine reads one line (without its newline).
func ParseLine(b []byte) (Line, error) {
	var l Line
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&l); err != nil {
		return Line{}, fmt.Errorf("not a JSON object of a run: %v", err)
	}
	if d.More() {
		return Line{}, errors.New("more than one JSON value on the line")
	}
	if len(l.Point) == 0 || l.Point[0] != '{' {
		return Line{}, errors.New(`"point" is missing or not an object`)
	}
	if len(l.Summary) == 0 || l.Summary[0] != '{' {
		return Line{}, errors.New(`"summary" is missing or not an object`)
	}
	if l.Replication < 0 || l.Replication >= MaxRuns {
		return Line{}, fmt.Errorf(`"replication" %d is not allowed: want 0 to %d`, l.Replication, int64(MaxRuns-1))
	}
	for _, f := range l.Flags {
		if !Printable(f) {
			return Line{}, fmt.Errorf(`"flags" holds %q, which is not printable text`, f)
		}
	}
	return l, nil
}

// Contents is what a results file holds.
type Contents struct {
	// Complete is the length in bytes of the whole lines; a partial last
	// line (an interrupted write) starts there.
	Complete int64
	// Partial reports whether the file ends in a partial line.
	Partial bool
}

// lineStart is how every line of a results file starts.
const lineStart = `{"point":`

// ReadFile calls fn for every whole line of r, numbered from 1, in order,
// and stops at the first error fn returns or the first line that does not
// parse (the error names the line). A last line without its newline is
// not passed to fn: it is reported in Contents.Partial, when it is the
// start of a line as a write cut short leaves it; any other text there
// means r is not a results file, and is an error.
func ReadFile(r io.Reader, fn func(lineNo int, l Line) error) (Contents, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var c Contents
	var long []byte
	for n := 1; ; {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(chunk) > MaxLineBytes {
				return c, fmt.Errorf("line %d is longer than %d bytes: not a results file", n, MaxLineBytes)
			}
			long = append(long, chunk...)
			continue
		}
		text := chunk
		if long != nil {
			text = append(long, chunk...)
			long = nil
		}
		if err == io.EOF {
			c.Partial = len(text) > 0
			if c.Partial && !bytes.HasPrefix(text, []byte(lineStart)) && !bytes.HasPrefix([]byte(lineStart), text) {
				return c, fmt.Errorf("line %d has no newline at its end and is not the start of a run's line (%s…): not a results file", n, lineStart)
			}
			return c, nil
		}
		if err != nil {
			return c, err
		}
		l, perr := ParseLine(text[:len(text)-1])
		if perr != nil {
			return c, fmt.Errorf("line %d: %v", n, perr)
		}
		if err := fn(n, l); err != nil {
			return c, err
		}
		c.Complete += int64(len(text))
		n++
	}
}
