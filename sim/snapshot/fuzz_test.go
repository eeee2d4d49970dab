package snapshot

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// seeds returns the golden snapshots and a small one, to seed the fuzzers.
func seeds(f *testing.F) [][]byte {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.lbsnap"))
	var out [][]byte
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, data)
	}
	return append(out, smallSnapshot(f))
}

// roundTrip checks that a decoded snapshot encodes, and that the encoding
// decodes to the same snapshot and encodes to the same bytes again.
func roundTrip(t *testing.T, s Snapshot) {
	b1, err := Encode(s)
	if err != nil {
		t.Fatalf("a decoded snapshot does not encode: %v", err)
	}
	s2, err := Decode(b1)
	if err != nil {
		t.Fatalf("a re-encoded snapshot does not decode: %v", err)
	}
	if !reflect.DeepEqual(s, s2) {
		t.Fatalf("decode → encode → decode changed the snapshot:\n%+v\n%+v", s, s2)
	}
	b2, err := Encode(s2)
	if err != nil || !bytes.Equal(b1, b2) {
		t.Fatalf("encoding is not stable: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		s, err := Decode(data)
		if err != nil {
			return
		}
		roundTrip(t, s)
	})
}

// addPayloads adds the payloads of the snapshots to f's corpus.
func addPayloads(f *testing.F, snaps [][]byte) {
	for _, s := range snaps {
		var env envelope
		if _, err := env.UnmarshalMsg(s); err != nil {
			f.Fatal(err)
		}
		f.Add(env.Payload)
	}
}

// decodeSealed seals payload (at most 64 KiB) with a correct checksum and
// decodes it, so that mutations reach the field decoders; it reports
// whether the snapshot decoded.
func decodeSealed(t *testing.T, payload []byte) (Snapshot, bool) {
	t.Helper()
	if len(payload) > 1<<16 {
		return Snapshot{}, false
	}
	data, err := seal(FormatVersion, payload)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Decode(data)
	return s, err == nil
}

// FuzzPayload fuzzes what lies behind the checksum: the payload is sealed
// with a correct checksum, so mutations reach the field decoders.
func FuzzPayload(f *testing.F) {
	addPayloads(f, seeds(f))
	f.Fuzz(func(t *testing.T, payload []byte) {
		if s, ok := decodeSealed(t, payload); ok {
			roundTrip(t, s)
		}
	})
}

func FuzzParseLink(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(Fragment(s))
		f.Add("https://lbsim.example/?speed=max" + Fragment(s))
	}
	f.Add("#speed=1&r=g6ZsYnNuYXAB")
	f.Add("#r=")
	f.Fuzz(func(t *testing.T, link string) {
		if len(link) > 1<<17 {
			return
		}
		s, err := ParseLink(link)
		if err != nil {
			return
		}
		roundTrip(t, s)
		data, _ := Encode(s)
		s2, err := ParseLink(Fragment(data))
		if err != nil || !reflect.DeepEqual(s, s2) {
			t.Fatalf("Fragment → ParseLink: %v", err)
		}
	})
}
