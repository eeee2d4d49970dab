package snapshot

import (
	"bytes"
	"encoding/hex"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// everyRowPlaces is the last wire place when testdata/every-row.hex was
// recorded: rows added since keep their defaults there.
const everyRowPlaces = 51

// everyRowConfigs are the configurations of testdata/every-row.hex: the
// defaults, every row of then at its example value (with service times and
// a trace), and the zero Config.
func everyRowConfigs(t *testing.T) []sim.Config {
	def := sim.DefaultConfig()
	def.Seed = 7
	ex := sim.DefaultConfig()
	for _, r := range sim.Rows() {
		if r.File || r.Wire.Seq > everyRowPlaces {
			continue
		}
		if err := ex.Set(r.Name, r.Example); err != nil {
			t.Fatal(r.Name, err)
		}
	}
	ex.ServiceValues = []int32{5, 10, 300}
	ex.Trace = []sim.TraceRow{{Cycle: 0, Type: 1, Src: 3, Dst: 4, Time: 9}, {Cycle: 5, Src: 1 << 30, Dst: 2, Time: 70}}
	var zero sim.Config
	return []sim.Config{def, ex, zero}
}

// wireRoundTrip encodes c's configuration map and reads it back without
// Validate.
func wireRoundTrip(t *testing.T, c *sim.Config) ([]byte, sim.Config) {
	t.Helper()
	w := fromConfig(c)
	b, err := w.MarshalMsg(nil)
	if err != nil {
		t.Fatal(err)
	}
	var back wireConfig
	if rest, err := back.UnmarshalMsg(b); err != nil || len(rest) != 0 {
		t.Fatalf("UnmarshalMsg: %v (%d bytes left)", err, len(rest))
	}
	got, err := back.config()
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return b, got
}

// TestConfigWireUnchanged: the configuration map written from the table is
// byte for byte the one the hand-written wire struct wrote before
// (testdata/every-row.hex, recorded with it), for the defaults, every
// row's example value and the zero Config, and it reads back as written.
func TestConfigWireUnchanged(t *testing.T) {
	data, err := os.ReadFile("testdata/every-row.hex")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(string(data))
	cs := everyRowConfigs(t)
	if len(want) != len(cs) {
		t.Fatalf("%d lines in every-row.hex, want %d", len(want), len(cs))
	}
	for i, c := range cs {
		b, back := wireRoundTrip(t, &c)
		if got := hex.EncodeToString(b); got != want[i] {
			t.Errorf("config %d on the wire:\n%s\nwant\n%s", i, got, want[i])
		}
		if i < 2 && !reflect.DeepEqual(back, c) {
			t.Errorf("config %d read back as\n%+v\nwant\n%+v", i, back, c)
		}
	}
}

// TestEveryRowExampleOnTheWire: each row's example value, changeable or
// not, is written and read back as given.
func TestEveryRowExampleOnTheWire(t *testing.T) {
	for _, r := range sim.Rows() {
		t.Run(r.Name, func(t *testing.T) {
			c := sim.DefaultConfig()
			if r.File {
				c.ServiceValues = []int32{7, 8}
			} else if err := c.Set(r.Name, r.Example); err != nil {
				t.Fatal(err)
			}
			b, back := wireRoundTrip(t, &c)
			if got := r.Get(&back); got != r.Get(&c) {
				t.Errorf("%s read back as %q, want %q", r.Name, got, r.Get(&c))
			}
			if !reflect.DeepEqual(back, c) {
				t.Errorf("read back as\n%+v\nwant\n%+v", back, c)
			}
			n, v := r.WireValue(&c)
			if written := bytes.Contains(b, append([]byte{0xa0 | byte(len(r.Wire.Key))}, r.Wire.Key...)); written != (n != 0 || len(v) > 0) {
				t.Errorf("the key %q written: %v, for the value %d %x", r.Wire.Key, written, n, v)
			}
		})
	}
}

// TestEveryRowHasAWireKey: every row (and the trace's two entries) has a
// key of its own, a place of its own with none skipped, and bytes a limit;
// a row left off the wire would replay a snapshot with its default.
func TestEveryRowHasAWireKey(t *testing.T) {
	for _, r := range sim.Rows() {
		if r.Wire.Key == "" {
			t.Errorf("setting %s has no wire key: give its row .wire(key, place)", r.Name)
		}
	}
	seen := map[int]string{}
	for _, e := range wireEntries {
		name := e.Key
		if e.row != nil {
			name = e.row.Name
		}
		switch {
		case e.Kind == sim.WireBytes && e.Limit <= 0:
			t.Errorf("setting %s: bytes with no limit", name)
		case seen[e.Seq] != "":
			t.Errorf("settings %s and %s share wire place %d", seen[e.Seq], name, e.Seq)
		}
		seen[e.Seq] = name
		if wireEntries[wireKeys[e.Key]].Seq != e.Seq {
			t.Errorf("wire key %q used twice", e.Key)
		}
	}
	last := 0
	for _, e := range wireEntries {
		last = max(last, e.Seq)
	}
	for s := 1; s <= last; s++ {
		if seen[s] == "" {
			t.Errorf("no setting at wire place %d: places run 1..%d, a new row takes the next", s, last)
		}
	}
}

// TestEveryConfigFieldOnTheWire walks sim.Config's fields by reflection (as
// math/rand/v2's regress test walks every method): each field set on its
// own changes the configuration map and is read back as set (9, no
// setting's default, for numbers). A field no
// row carries fails here; before, it replayed as its zero value.
func TestEveryConfigFieldOnTheWire(t *testing.T) {
	var zero sim.Config
	blank, _ := wireRoundTrip(t, &zero)
	typ := reflect.TypeFor[sim.Config]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			var c sim.Config
			fill(reflect.ValueOf(&c).Elem().Field(i))
			b, back := wireRoundTrip(t, &c)
			if bytes.Equal(b, blank) {
				t.Fatalf("Config.%s is on no row's wire: give its row a wire key (sim.Row.Wire)", f.Name)
			}
			if got, want := reflect.ValueOf(back).Field(i).Interface(), reflect.ValueOf(c).Field(i).Interface(); !reflect.DeepEqual(got, want) {
				t.Errorf("Config.%s read back as %v, want %v", f.Name, got, want)
			}
		})
	}
}

// fill gives v a value other than its zero that every wire form holds: 9
// for numbers (1 for a uint8, a choice's number or a request type), true,
// one item for a list.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(9)
	case reflect.Uint8:
		v.SetUint(1)
	case reflect.Uint32, reflect.Uint64:
		v.SetUint(9)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i))
		}
	default:
		panic("fill: no value for a " + v.Kind().String())
	}
}
