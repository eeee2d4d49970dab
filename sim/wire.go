package sim

import (
	"encoding/binary"
	"fmt"
	"math"
)

// WireKind is how a snapshot encodes a setting's value.
type WireKind uint8

// The kinds of a snapshot's values.
const (
	WireInt   WireKind = iota // a signed integer in the setting's own unit
	WireBool                  // true or false
	WireUint                  // an unsigned integer (the seed)
	WireBytes                 // a byte string: a list's items, each row its own form
)

// Wire is how a snapshot (package snapshot) stores a setting: a key in the
// configuration map, the key's place among the others, and the encoding.
// Keys and places are append-only: a key once used is never reused or
// moved, so every snapshot ever written still reads the same. A value
// that is its zero (0, false, empty) is left out of the map, and a key
// missing from an older file reads as zero, which must therefore mean "as
// before".
type Wire struct {
	// Key is the key in the snapshot's configuration map ("sv").
	Key string
	// Seq is the key's place: the map is written in Seq order.
	Seq int
	// Kind is the value's encoding.
	Kind WireKind
	// Limit is the most bytes a WireBytes value may hold.
	Limit int
	// Default, when not 0, is written as 0 (absent) and read back so: a
	// snapshot of a run that leaves the setting alone does not carry it.
	Default int64
}

// MaxBlocked is the most blocked ranges a snapshot holds.
const MaxBlocked = 100_000

// wire sets how a snapshot stores a scalar setting (an integer, or true or
// false for a switch) under key at place seq.
func (r Row) wire(key string, seq int) Row {
	kind := WireInt
	if r.IsBool() {
		kind = WireBool
	}
	r.Wire = Wire{Key: key, Seq: seq, Kind: kind}
	return r
}

// wireDefault writes the setting's default def as 0.
func (r Row) wireDefault(def int64) Row { r.Wire.Default = def; return r }

// wireBytes sets how a snapshot stores a list setting: its own byte form,
// at most limit bytes.
func (r Row) wireBytes(key string, seq, limit int, enc func(*Config) []byte, dec func(*Config, []byte) error) Row {
	r.Wire = Wire{Key: key, Seq: seq, Kind: WireBytes, Limit: limit}
	r.wireEnc, r.wireDec = enc, dec
	return r
}

// WireValue returns the setting's value in c as a snapshot stores it: an
// integer (WireInt; WireBool 0 or 1; WireUint its bits) or bytes
// (WireBytes).
func (r *Row) WireValue(c *Config) (int64, []byte) {
	switch {
	case r.Wire.Kind == WireBytes:
		return 0, r.wireEnc(c)
	case r.Wire.Kind == WireUint:
		return int64(c.Seed), nil
	}
	v := r.load(c)
	if r.Wire.Default != 0 && v == r.Wire.Default {
		return 0, nil
	}
	return v, nil
}

// SetWire gives c the value a snapshot stored (as WireValue returns it).
// It refuses what the setting's Go type cannot hold and a choice's unknown
// number; ranges are Validate's.
func (r *Row) SetWire(c *Config, v int64, b []byte) error {
	switch {
	case r.Wire.Kind == WireBytes:
		return r.wireDec(c, b)
	case r.Wire.Kind == WireUint:
		c.Seed = uint64(v)
		return nil
	}
	if r.Wire.Default != 0 && v == 0 {
		v = r.Wire.Default
	}
	switch {
	case r.choice != nil && (v < r.lo || v > r.hi):
		return fmt.Errorf("config %s number %d is unknown: this lbsim knows %d..%d (%v)", r.Name, v, r.lo, r.hi, r.choice())
	case r.narrow && (v < math.MinInt32 || v > math.MaxInt32):
		return fmt.Errorf("config %s = %d: out of range", r.Name, v)
	}
	r.store(c, v)
	return nil
}

// seedWire: the seed as an unsigned integer.
func (r Row) seedWire(key string, seq int) Row {
	r.Wire = Wire{Key: key, Seq: seq, Kind: WireUint}
	return r
}

// appendRanges writes each range as two big-endian uint32s.
func appendRanges(c *Config) []byte {
	var b []byte
	for _, r := range c.Blocked {
		b = binary.BigEndian.AppendUint32(b, r.First)
		b = binary.BigEndian.AppendUint32(b, r.Last)
	}
	return b
}

func readRanges(c *Config, b []byte) error {
	if len(b)%8 != 0 {
		return fmt.Errorf("config blocked ranges: %d bytes, want a multiple of 8", len(b))
	}
	if len(b)/8 > MaxBlocked {
		return fmt.Errorf("config blocked ranges: %d ranges, at most %d allowed", len(b)/8, MaxBlocked)
	}
	if len(b) == 0 {
		c.Blocked = nil
		return nil
	}
	rs := make([]Range, len(b)/8)
	for i := range rs {
		r := Range{First: binary.BigEndian.Uint32(b[8*i:]), Last: binary.BigEndian.Uint32(b[8*i+4:])}
		if r.First > r.Last {
			return fmt.Errorf("config blocked range %d: %s comes after %s", i+1, FormatIPv4(r.First), FormatIPv4(r.Last))
		}
		rs[i] = r
	}
	c.Blocked = rs
	return nil
}

// appendUvarints writes the items as unsigned varints (a negative one as
// 0, which the reader's Validate refuses).
func appendUvarints[T ~int | ~int32](vs []T) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.AppendUvarint(b, uint64(max(v, 0)))
	}
	return b
}

// readUvarints reads appendUvarints's form: at most most items, each an
// int32; Validate checks each item's range. what names the list in errors.
func readUvarints[T ~int | ~int32](b []byte, most int, what string) ([]T, error) {
	var vs []T
	for len(b) > 0 {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > math.MaxInt32 {
			return nil, fmt.Errorf("config %s: bad entry %d", what, len(vs)+1)
		}
		if len(vs) >= most {
			return nil, fmt.Errorf("config %s: more than %d", what, most)
		}
		vs = append(vs, T(v))
		b = b[n:]
	}
	return vs, nil
}

// The list settings' byte forms: swrr weights, speeds in hundredths and
// the empirical shape's times, each as unsigned varints.
func appendWeights(c *Config) []byte { return appendUvarints(c.Weights) }
func appendSpeeds(c *Config) []byte  { return appendUvarints(c.Speeds) }
func appendValues(c *Config) []byte  { return appendUvarints(c.ServiceValues) }

func readWeights(c *Config, b []byte) (err error) {
	c.Weights, err = readUvarints[int](b, MaxServersLimit, "weights")
	return err
}

func readSpeeds(c *Config, b []byte) (err error) {
	c.Speeds, err = readUvarints[Speed](b, MaxServersLimit, "speeds")
	return err
}

func readValues(c *Config, b []byte) (err error) {
	c.ServiceValues, err = readUvarints[int32](b, MaxServiceValues, "service values")
	return err
}
