package snapshot

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/lbsim/lbsim/sim"
	"github.com/tinylib/msgp/msgp"
)

// The run's configuration on the wire is a msgpack map written from the
// settings table: each row of sim.Rows carries its key, its place and its
// encoding (sim.Wire), so a new setting needs nothing here. The one entry
// that is no setting is a trace that replaces the generator: a switch
// ("tm") and its rows ("tr", see appendTrace).

// wireEntry is one key of the configuration map: a setting's row, or the
// trace's own entries (row nil).
type wireEntry struct {
	sim.Wire
	row *sim.Row
}

// The trace's entries, at their places among the settings.
var (
	traceMode = sim.Wire{Key: "tm", Seq: 21, Kind: sim.WireBool}
	traceRows = sim.Wire{Key: "tr", Seq: 22, Kind: sim.WireBytes, Limit: 33554432}
)

// wireEntries are the configuration map's entries in Seq order, and
// wireKeys their index by key.
var wireEntries, wireKeys = func() ([]wireEntry, map[string]int) {
	es := []wireEntry{{Wire: traceMode}, {Wire: traceRows}}
	rows := sim.Rows()
	for i := range rows {
		if rows[i].Wire.Key != "" { // a row without one fails TestEveryRowHasAWireKey
			es = append(es, wireEntry{rows[i].Wire, &rows[i]})
		}
	}
	slices.SortFunc(es, func(a, b wireEntry) int { return cmp.Compare(a.Seq, b.Seq) })
	keys := map[string]int{}
	for i, e := range es {
		keys[e.Key] = i
	}
	return es, keys
}()

// maxConfigKeys bounds the configuration map's size (msgp's map limit).
const maxConfigKeys = 1024

// wireValue is one entry's value: an integer (bools 0 or 1, the seed's
// bits) or bytes.
type wireValue struct {
	n int64
	b []byte
}

// wireConfig is a configuration as the wire holds it: each entry's value
// by its place in wireEntries; a zero value is left out.
type wireConfig struct {
	vals []wireValue
}

// fromConfig maps a sim.Config onto the wire.
func fromConfig(c *sim.Config) wireConfig {
	w := wireConfig{vals: make([]wireValue, len(wireEntries))}
	for i, e := range wireEntries {
		switch {
		case e.row != nil:
			w.vals[i].n, w.vals[i].b = e.row.WireValue(c)
		case e.Key == traceMode.Key && c.Trace != nil:
			w.vals[i].n = 1
		case e.Key == traceRows.Key:
			w.vals[i].b = appendTrace(nil, c.Trace)
		}
	}
	return w
}

// value returns the entry's value at place i (zero when absent).
func (w *wireConfig) value(i int) wireValue {
	if i < len(w.vals) {
		return w.vals[i]
	}
	return wireValue{}
}

// sim maps the wire form back and validates the result like any
// configuration (sim.Config.Validate). Numbers too large for their Go
// type are refused rather than truncated.
func (w *wireConfig) sim() (sim.Config, error) {
	c, err := w.config()
	if err != nil {
		return sim.Config{}, err
	}
	if err := c.Validate(); err != nil {
		return sim.Config{}, fmt.Errorf("config: %w", err)
	}
	return c, nil
}

// config maps the wire form back without Validate: each value must fit its
// setting's Go type and each list read whole.
func (w *wireConfig) config() (sim.Config, error) {
	var c sim.Config
	for i, e := range wireEntries {
		if e.row == nil {
			continue
		}
		v := w.value(i)
		if err := e.row.SetWire(&c, v.n, v.b); err != nil {
			return sim.Config{}, err
		}
	}
	mode, rows := w.value(wireKeys[traceMode.Key]), w.value(wireKeys[traceRows.Key])
	if mode.n != 0 {
		var err error
		if c.Trace, err = readTrace(rows.b); err != nil {
			return sim.Config{}, err
		}
	} else if len(rows.b) > 0 {
		return sim.Config{}, errors.New("config: trace rows without trace mode")
	}
	return c, nil
}

// present reports whether the entry's value is written (omitempty).
func (v wireValue) present() bool { return v.n != 0 || len(v.b) > 0 }

// MarshalMsg implements msgp.Marshaler: the map of the values present, in
// Seq order.
func (w *wireConfig) MarshalMsg(b []byte) ([]byte, error) {
	o := msgp.Require(b, w.Msgsize())
	n := 0
	for i := range wireEntries {
		if w.value(i).present() {
			n++
		}
	}
	o = msgp.AppendMapHeader(o, uint32(n))
	for i, e := range wireEntries {
		v := w.value(i)
		if !v.present() {
			continue
		}
		o = msgp.AppendString(o, e.Key)
		switch e.Kind {
		case sim.WireInt:
			o = msgp.AppendInt64(o, v.n)
		case sim.WireBool:
			o = msgp.AppendBool(o, v.n != 0)
		case sim.WireUint:
			o = msgp.AppendUint64(o, uint64(v.n))
		case sim.WireBytes:
			o = msgp.AppendBytes(o, v.b)
		}
	}
	return o, nil
}

// UnmarshalMsg implements msgp.Unmarshaler: keys it does not know are
// skipped; a byte string longer than its entry's limit is refused before
// it is copied.
func (w *wireConfig) UnmarshalMsg(bts []byte) ([]byte, error) {
	n, bts, err := msgp.ReadMapHeaderBytes(bts)
	if err != nil {
		return bts, msgp.WrapError(err)
	}
	if n > maxConfigKeys {
		return bts, msgp.ErrLimitExceeded
	}
	w.vals = make([]wireValue, len(wireEntries))
	for ; n > 0; n-- {
		var key []byte
		if key, bts, err = msgp.ReadMapKeyZC(bts); err != nil {
			return bts, msgp.WrapError(err)
		}
		i, ok := wireKeys[string(key)]
		if !ok {
			if bts, err = msgp.Skip(bts); err != nil {
				return bts, msgp.WrapError(err)
			}
			continue
		}
		if bts, err = w.read(i, bts); err != nil {
			return bts, msgp.WrapError(err, wireEntries[i].Key)
		}
	}
	return bts, nil
}

// read reads the value of entry i.
func (w *wireConfig) read(i int, bts []byte) ([]byte, error) {
	var err error
	v := &w.vals[i]
	switch e := wireEntries[i]; e.Kind {
	case sim.WireInt:
		v.n, bts, err = msgp.ReadInt64Bytes(bts)
	case sim.WireBool:
		var t bool
		t, bts, err = msgp.ReadBoolBytes(bts)
		v.n = 0
		if t {
			v.n = 1
		}
	case sim.WireUint:
		var u uint64
		u, bts, err = msgp.ReadUint64Bytes(bts)
		v.n = int64(u)
	case sim.WireBytes:
		var size uint32
		if size, bts, err = msgp.ReadBytesHeader(bts); err != nil {
			return bts, err
		}
		if size > uint32(e.Limit) {
			return bts, msgp.ErrLimitExceeded
		}
		if uint32(len(bts)) < size {
			return bts, msgp.ErrShortBytes
		}
		v.b = append([]byte(nil), bts[:size]...)
		bts = bts[size:]
	}
	return bts, err
}

// Msgsize implements msgp.Sizer: an upper bound of MarshalMsg's length.
func (w *wireConfig) Msgsize() int {
	s := msgp.MapHeaderSize
	for i, e := range wireEntries {
		s += msgp.StringPrefixSize + len(e.Key) + msgp.Int64Size + msgp.BytesPrefixSize + len(w.value(i).b)
	}
	return s
}
