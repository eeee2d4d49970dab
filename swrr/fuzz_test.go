package swrr

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
)

// FuzzServe feeds arbitrary input to the protocol reader. It must never
// panic, and every answer must be OK (to a POOL), EMPTY (to a PICK or
// PICKN), a line starting "ERR ", or the right number of comma-joined
// addresses that are in the current pool, which the test tracks by
// re-parsing the input independently.
func FuzzServe(f *testing.F) {
	for _, seed := range []string{
		"POOL a=3 b=1\nPICKN 4\n",
		"POOL a=5 b=1 c=1\nPICK\nPICKN 6\n",
		"POOL 10.0.0.11:8080=5 10.0.0.12:8080\nPICKN 6\n",
		"POOL a=b=3 c\nPICKN 4\n",
		"POOL\nPICK\nPICKN 3\n",
		"PICK\nPICKN 1000000000000\n",
		"POOL a=0 b=0\nPICK\n",
		"\n \t \r\nPOOL  a=3\t b=1 \r\n\r\n\tPICK \r\n",
		"POOL a=3 b=1\nPICK\nPOOL a=3 b=-1\nPICKN 3\n",
		"POOL a=3 b=1\nPOOL c=1 a=\nFOO\nPICKN 0\nPICKN x\nPICK 2\nPICKN 3\n",
		"POOL =3 a,b=1 a=1000000001\n",
		"POOL a b\nPICKN 1000000000000\n",
		"POOL " + strings.Repeat("x", 300) + "\nPICK\n",
	} {
		f.Add([]byte(seed))
	}
	const maxLine = 256
	f.Fuzz(func(t *testing.T, input []byte) {
		if len(input) > 64<<10 {
			t.Skip("inputs past 64 KiB only slow the fuzzer down")
		}
		var trace bytes.Buffer
		out := &limitedBuffer{limit: 64 << 10}
		err := serve(bytes.NewReader(input), out, &trace, maxLine)
		answers := strings.Split(out.String(), "\n")
		switch {
		case err == nil:
			if answers[len(answers)-1] != "" {
				t.Fatalf("output does not end with a newline: %q", out.String())
			}
		case errors.Is(err, errFull):
			// The output was cut: the last answer may be incomplete.
		default:
			t.Fatalf("serve: %v", err)
		}
		answers = answers[:len(answers)-1]

		commands := strings.Split(string(input), "\n")
		if strings.HasSuffix(string(input), "\n") || len(input) == 0 {
			commands = commands[:len(commands)-1]
		}
		var pool map[string]bool // before the first POOL: empty
		for _, line := range commands {
			line = strings.TrimSuffix(line, "\r")
			tok := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })
			if len(tok) == 0 && len(line) <= maxLine {
				continue // a blank line gets no answer
			}
			if len(answers) == 0 {
				if err == nil {
					t.Fatalf("no answer to %q", line)
				}
				return // the output was cut before this line
			}
			answer := answers[0]
			answers = answers[1:]
			if strings.HasPrefix(answer, "ERR ") {
				continue // and nothing changes
			}
			if len(line) > maxLine {
				t.Fatalf("line of %d bytes answered %q, want ERR", len(line), answer)
			}
			switch cmd := tok[0]; {
			case answer == "OK":
				if cmd != "POOL" {
					t.Fatalf("%q answered OK", line)
				}
				pool = map[string]bool{}
				for _, e := range tok[1:] {
					if i := strings.LastIndexByte(e, '='); i >= 0 {
						e = e[:i]
					}
					pool[e] = true
				}
			case answer == "EMPTY":
				if cmd != "PICK" && cmd != "PICKN" {
					t.Fatalf("%q answered EMPTY", line)
				}
			default:
				want := int64(1)
				switch {
				case cmd == "PICKN" && len(tok) == 2:
					want, _ = strconv.ParseInt(tok[1], 10, 64)
				case cmd != "PICK":
					t.Fatalf("%q answered %q", line, answer)
				}
				picks := strings.Split(answer, ",")
				if int64(len(picks)) != want {
					t.Fatalf("%q answered %d picks", line, len(picks))
				}
				for _, p := range picks {
					if !pool[p] {
						t.Fatalf("%q answered %q, which is not in the pool %v", line, p, pool)
					}
				}
			}
		}
		if len(answers) != 0 {
			t.Fatalf("answers left over: %q", answers)
		}
	})
}

// limitedBuffer keeps up to limit bytes, then fails with errFull.
type limitedBuffer struct {
	bytes.Buffer
	limit int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.Len(); len(p) > room {
		b.Buffer.Write(p[:room])
		return room, errFull
	}
	return b.Buffer.Write(p)
}
