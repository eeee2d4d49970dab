package snapshot

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestCaption: a caption travels with a snapshot and a comparison; a
// caption that is too long, holds a control character or is not UTF-8 is
// refused when encoding, and in a hostile file when decoding, with an
// error that says what is allowed.
func TestCaption(t *testing.T) {
	data := smallSnapshot(t)
	s, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if s.Caption != "" {
		t.Fatalf("a snapshot without a caption decodes with %q", s.Caption)
	}
	for _, tc := range []struct {
		caption string
		bad     string // part of the error, or "" when allowed
	}{
		{"", ""},
		{"Watch server 3: it is slow — ×0.5 — and its bar grows. «Cf. p. 12»", ""},
		{strings.Repeat("é", MaxCaption), ""},
		{strings.Repeat("a", MaxCaption+1), "at most 280"},
		{"line one\nline two", "not printable"},
		{"tab\there", "not printable"},
		{"bell\x07", "not printable"},
		{"escape \x1b[31mred", "not printable"},
		{"line\u2028separator", "not printable"},
		{"bidi \u202e override", "not printable"},
		{"bad \xff utf-8", "UTF-8"},
	} {
		c := s
		c.Caption = tc.caption
		enc, err := Encode(c)
		if tc.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("caption %q: encode error %v, want one saying %q", tc.caption, err, tc.bad)
			}
			// The same caption in a hostile file is refused on decoding.
			b, err := s.body()
			if err != nil {
				t.Fatal(err)
			}
			b.Caption = tc.caption
			payload, err := b.MarshalMsg(nil)
			if err != nil {
				t.Fatal(err)
			}
			sealed, _ := seal(FormatVersion, payload)
			if _, err := Decode(sealed); err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("caption %q in a file: decode error %v, want one saying %q", tc.caption, err, tc.bad)
			}
			continue
		}
		if err != nil {
			t.Errorf("caption %q: %v", tc.caption, err)
			continue
		}
		got, err := Decode(enc)
		if err != nil || got.Caption != tc.caption {
			t.Errorf("caption %q: decoded %q, %v", tc.caption, got.Caption, err)
		}
		cmp, err := EncodeComparison(Comparison{Lanes: []Lane{{Label: "a", Snapshot: c}, {Label: "b", Snapshot: s}}})
		if err != nil {
			t.Fatal(err)
		}
		if dc, err := DecodeComparison(cmp); err != nil || dc.Lanes[0].Caption != tc.caption {
			t.Errorf("caption %q in a comparison: decoded %+v, %v", tc.caption, dc.Lanes, err)
		}
	}
}

// FuzzCheckCaption: any text is accepted or refused without a panic, and
// an accepted one is UTF-8, at most MaxCaption characters, all printable.
func FuzzCheckCaption(f *testing.F) {
	for _, s := range []string{"", "hello", "a\nb", "\x00", "\u202e", strings.Repeat("x", 281), "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if CheckCaption(s) != nil {
			return
		}
		if !utf8.ValidString(s) || utf8.RuneCountInString(s) > MaxCaption {
			t.Fatalf("accepted %q", s)
		}
		for _, r := range s {
			if !unicode.IsPrint(r) && r != ' ' {
				t.Fatalf("accepted %q with %U", s, r)
			}
		}
	})
}
