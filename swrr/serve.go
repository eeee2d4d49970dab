package swrr

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// MaxLine is the longest command line, in bytes without its line ending,
// that [Serve] accepts. A longer line is answered with an ERR line and
// skipped, so memory stays bounded whatever the input.
const MaxLine = 1 << 20

// Serve runs the `lbsim wrr` line protocol (docs/cli.md): it reads one command a
// line from r and writes one answer line for each to w.
//
//	POOL <entry> …   replace the pool, all scores 0; answers OK.
//	                 An entry is ADDRESS or ADDRESS=WEIGHT, split at the last
//	                 "="; no "=" means weight 1. No entries: an empty pool.
//	PICK             answers one address, or EMPTY.
//	PICKN <n>        answers n ≥ 1 picks joined by "," without spaces, or EMPTY.
//
// Tokens are separated by runs of spaces or tabs; a trailing "\r" is ignored
// and blank lines are skipped. Before the first POOL the pool is empty. An
// unknown command, a bad entry, a bad or missing n, or a line longer than
// MaxLine bytes is answered with a line starting "ERR " that says what was
// wrong and what is allowed, and changes nothing: the pool and its scores
// stay as they were.
//
// Weights are whole numbers from 0 to MaxWeight. Addresses must be non-empty
// and may not contain ",", so that every answer reads back unambiguously.
// PICKN streams its answer, so even a huge n needs only constant memory.
//
// If explain is not nil, a worked trace of the scores after each pick (as in
// the lesson's table) is written there, never to w.
//
// Serve returns nil at the end of r, or the first error reading r or writing
// w or explain. Answers are flushed whenever Serve waits for more input, so
// it can be used interactively.
func Serve(r io.Reader, w io.Writer, explain io.Writer) error {
	return serve(r, w, explain, MaxLine)
}

// server is the state of one protocol session.
type server struct {
	out     *bufio.Writer
	explain *bufio.Writer // nil when no trace is wanted
	pool    *Pool
	names   []string
	picks   int64   // picks since the last POOL, for the trace
	scores  []int64 // reused buffer for the trace
}

func serve(r io.Reader, w io.Writer, explain io.Writer, maxLine int) error {
	in := bufio.NewReaderSize(r, 64<<10)
	s := &server{out: bufio.NewWriterSize(w, 64<<10), pool: &Pool{}}
	if explain != nil {
		s.explain = bufio.NewWriter(explain)
	}
	var line []byte
	for {
		var tooLong bool
		var err error
		line, tooLong, err = readLine(in, line[:0], maxLine)
		if err == io.EOF {
			return s.flush()
		}
		if err != nil {
			s.flush() // best effort: the read error is the one to report
			return fmt.Errorf("reading commands: %w", err)
		}
		if tooLong {
			s.errorf("line is longer than %d bytes: each command must fit in %d bytes", maxLine, maxLine)
		} else {
			s.command(line)
		}
		if in.Buffered() == 0 { // about to wait for input: show the answers
			if err := s.flush(); err != nil {
				return err
			}
		}
	}
}

// readLine reads one line into buf, without its "\n" or a "\r" before it.
// If the line is longer than maxLine bytes, the rest of it is read and
// dropped, and tooLong is true. At the end of input with nothing read it
// returns io.EOF; a last line without "\n" is returned as a line.
func readLine(in *bufio.Reader, buf []byte, maxLine int) (line []byte, tooLong bool, err error) {
	read := false
	for {
		chunk, err := in.ReadSlice('\n')
		read = read || len(chunk) > 0
		if !tooLong {
			if len(buf)+len(chunk) > maxLine+2 { // room for "\r\n"
				tooLong = true
				buf = buf[:0]
			} else {
				buf = append(buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue // the line goes on
		}
		if err == io.EOF && !read {
			return buf, false, io.EOF
		}
		if err != nil && err != io.EOF {
			return buf, tooLong, err
		}
		break
	}
	buf = bytes.TrimSuffix(buf, []byte("\n"))
	buf = bytes.TrimSuffix(buf, []byte("\r"))
	if len(buf) > maxLine {
		tooLong = true
	}
	return buf, tooLong, nil
}

// fields splits a line at runs of spaces and tabs. It returns nil for a
// blank line.
func fields(line []byte) [][]byte {
	var out [][]byte
	for {
		line = bytes.TrimLeft(line, " \t")
		if len(line) == 0 {
			return out
		}
		end := bytes.IndexAny(line, " \t")
		if end < 0 {
			end = len(line)
		}
		out = append(out, line[:end])
		line = line[end:]
	}
}

func (s *server) command(line []byte) {
	f := fields(line)
	if len(f) == 0 {
		return // blank line
	}
	switch cmd, args := string(f[0]), f[1:]; cmd {
	case "POOL":
		s.setPool(args)
	case "PICK":
		if len(args) != 0 {
			s.errorf("PICK takes no arguments, got %d: write PICK alone, or PICKN <n>", len(args))
			return
		}
		s.pickN(1)
	case "PICKN":
		if len(args) != 1 {
			s.errorf("PICKN takes exactly one argument, got %d: write PICKN <n> with a whole number n of at least 1", len(args))
			return
		}
		n, err := strconv.ParseInt(string(args[0]), 10, 64)
		if err != nil || n < 1 {
			s.errorf("bad n %q for PICKN: allowed is a whole number from 1 to %d", truncate(args[0]), int64(math.MaxInt64))
			return
		}
		s.pickN(n)
	default:
		s.errorf("unknown command %q: allowed are POOL <entry> …, PICK and PICKN <n>", truncate(f[0]))
	}
}

// setPool replaces the pool after checking every entry; one bad entry
// leaves the old pool and its scores as they were.
func (s *server) setPool(entries [][]byte) {
	names := make([]string, 0, len(entries))
	weights := make([]int, 0, len(entries))
	for _, e := range entries {
		name, weight, err := parseEntry(e)
		if err != nil {
			s.errorf("%v; the pool is unchanged", err)
			return
		}
		names = append(names, name)
		weights = append(weights, weight)
	}
	pool, err := New(weights)
	if err != nil { // cannot happen: parseEntry checked every weight
		s.errorf("%v; the pool is unchanged", err)
		return
	}
	s.pool, s.names, s.picks = pool, names, 0
	s.out.WriteString("OK\n")
	if s.explain != nil {
		fmt.Fprintf(s.explain, "POOL: %d backends, total weight %d, scores reset to %s\n",
			pool.Len(), pool.Total(), s.formatScores())
	}
}

// parseEntry splits ADDRESS or ADDRESS=WEIGHT at the last "=".
func parseEntry(e []byte) (name string, weight int, err error) {
	i := bytes.LastIndexByte(e, '=')
	if i < 0 {
		name, weight = string(e), 1
	} else {
		name = string(e[:i])
		weight, err = parseWeight(e[i+1:])
		if err != nil {
			return "", 0, fmt.Errorf("entry %q: %w", truncate(e), err)
		}
	}
	if name == "" {
		return "", 0, fmt.Errorf("entry %q has an empty address: write ADDRESS or ADDRESS=WEIGHT", truncate(e))
	}
	if strings.Contains(name, ",") {
		return "", 0, fmt.Errorf("address %q contains \",\", which separates PICKN answers: use an address without commas", truncate([]byte(name)))
	}
	return name, weight, nil
}

func parseWeight(b []byte) (int, error) {
	allowed := fmt.Sprintf("allowed is a whole number from 0 to %d", MaxWeight)
	if len(b) == 0 {
		return 0, errors.New("empty weight after \"=\": " + allowed + ", or no \"=\" for weight 1")
	}
	w, err := strconv.ParseInt(string(b), 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("weight %q is too large: %s", truncate(b), allowed)
	case err != nil:
		return 0, fmt.Errorf("weight %q is not an integer: %s", truncate(b), allowed)
	case w < 0:
		return 0, fmt.Errorf("weight %d is negative: %s", w, allowed)
	case w > MaxWeight:
		return 0, fmt.Errorf("weight %d is too large: %s", w, allowed)
	}
	return int(w), nil
}

// pickN answers n picks on one line, streamed, or EMPTY.
func (s *server) pickN(n int64) {
	for k := int64(0); k < n; k++ {
		i, ok := s.pool.Pick()
		if !ok { // only possible on the first pick: the weights do not change
			s.out.WriteString("EMPTY")
			break
		}
		if k > 0 {
			s.out.WriteByte(',')
		}
		s.out.WriteString(s.names[i])
		if s.explain != nil {
			s.trace(i)
		}
		if k&1023 == 1023 && s.failed() {
			return // stop a huge PICKN once the output is gone
		}
	}
	s.out.WriteByte('\n')
}

// trace writes one row of the worked trace for a pick won by backend i:
// the scores after step 1 and after step 3.
func (s *server) trace(i int) {
	s.picks++
	after := s.formatScores()
	// Before step 3 the winner had the total more; the others are unchanged.
	s.scores[i] += s.pool.Total()
	tie := ""
	for j := i + 1; j < len(s.scores); j++ {
		if s.pool.Weight(j) > 0 && s.scores[j] == s.scores[i] {
			tie = " (tie: earliest listed)"
			break
		}
	}
	fmt.Fprintf(s.explain, "pick %d: add weights → %s; %s wins%s; subtract %d → %s\n",
		s.picks, formatInts(s.scores), s.names[i], tie, s.pool.Total(), after)
}

// formatScores loads the current scores into s.scores and formats them.
func (s *server) formatScores() string {
	s.scores = s.pool.Scores(s.scores[:0])
	return formatInts(s.scores)
}

func formatInts(v []int64) string {
	b := []byte{'['}
	for k, x := range v {
		if k > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, x, 10)
	}
	return string(append(b, ']'))
}

func (s *server) errorf(format string, args ...any) {
	s.out.WriteString("ERR ")
	fmt.Fprintf(s.out, format, args...)
	s.out.WriteByte('\n')
}

// failed reports whether writing the answers or the trace has failed.
func (s *server) failed() bool {
	// A bufio.Writer keeps its first error; writing nothing reveals it.
	if s.explain != nil {
		if _, err := s.explain.Write(nil); err != nil {
			return true
		}
	}
	_, err := s.out.Write(nil)
	return err != nil
}

func (s *server) flush() error {
	if err := s.out.Flush(); err != nil {
		return fmt.Errorf("writing answers: %w", err)
	}
	if s.explain != nil {
		if err := s.explain.Flush(); err != nil {
			return fmt.Errorf("writing trace: %w", err)
		}
	}
	return nil
}

// truncate shortens what an error message quotes back, so that an ERR line
// stays short even for a huge token.
func truncate(b []byte) string {
	const max = 64
	if len(b) <= max {
		return string(b)
	}
	return string(b[:max]) + "…"
}
