// Package snaptest crafts hostile snapshots for tests: fields of a valid
// .lbsnap replaced with any value and the payload resealed with a correct
// checksum, as a bit flip resealed or a hand-made file would be. Package
// snapshot's own checks never see these values on the way in, so tests of
// the command line and the page can hand them over as a file or a link.
package snaptest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/lbsim/lbsim/sim"
	"github.com/tinylib/msgp/msgp"
)

// Edit says what to replace in a snapshot.
type Edit struct {
	// Config maps wire keys of the configuration ("n" cycles, "r" rate in
	// millionths, "w" wave, "sv" servers …; see snapshot's format.go) to
	// new values; "w", "sw" and "tm" are booleans (0 or 1).
	Config map[string]int64
	// Changes, when not nil, replaces the change log, written as is.
	Changes []sim.Change
	// Engine, when not "", replaces the engine version string.
	Engine string
	// Every, when > 0, replaces the hash interval and drops the periodic
	// hashes (set it to the run's cycles for a consistent file).
	Every int64
}

var bools = map[string]bool{"w": true, "sw": true, "tm": true}

// Apply returns data, an encoded snapshot, with e's replacements, resealed.
func Apply(data []byte, e Edit) ([]byte, error) {
	var format uint32
	var payload []byte
	n, rest, err := msgp.ReadMapHeaderBytes(data)
	for i := uint32(0); i < n && err == nil; i++ {
		var key []byte
		if key, rest, err = msgp.ReadMapKeyZC(rest); err != nil {
			break
		}
		switch string(key) {
		case "lbsnap":
			format, rest, err = msgp.ReadUint32Bytes(rest)
		case "p":
			payload, rest, err = msgp.ReadBytesZC(rest)
		default:
			rest, err = msgp.Skip(rest)
		}
	}
	if err != nil || payload == nil {
		return nil, fmt.Errorf("snaptest: not a snapshot: %v", err)
	}
	payload, err = editMap(payload, func(key string, val []byte, out []byte) ([]byte, error) {
		switch {
		case key == "c" && e.Config != nil:
			return appendEdited(out, val, func(k string, v []byte, out []byte) ([]byte, error) {
				nv, ok := e.Config[k]
				switch {
				case !ok:
					return append(out, v...), nil
				case bools[k]:
					return msgp.AppendBool(out, nv != 0), nil
				}
				return msgp.AppendInt64(out, nv), nil
			}, keysOf(e.Config))
		case key == "e" && e.Engine != "":
			return msgp.AppendString(out, e.Engine), nil
		case key == "ch" && e.Changes != nil:
			return msgp.AppendBytes(out, changeLog(e.Changes)), nil
		case key == "h" && e.Every > 0:
			return appendEdited(out, val, func(k string, v []byte, out []byte) ([]byte, error) {
				switch k {
				case "every":
					return msgp.AppendInt64(out, e.Every), nil
				case "sums":
					return msgp.AppendBytes(out, nil), nil
				}
				return append(out, v...), nil
			}, nil)
		}
		return append(out, val...), nil
	}, changesKey(e))
	if err != nil {
		return nil, err
	}
	out := msgp.AppendMapHeader(nil, 3)
	out = msgp.AppendUint32(msgp.AppendString(out, "lbsnap"), format)
	out = msgp.AppendBytes(msgp.AppendString(out, "p"), payload)
	sum := crc32.Checksum(payload, crc32.MakeTable(crc32.Castagnoli))
	return msgp.AppendUint32(msgp.AppendString(out, "crc"), sum), nil
}

// appendEdited appends the edited map m to out.
func appendEdited(out, m []byte, f func(key string, val, out []byte) ([]byte, error), extra []string) ([]byte, error) {
	edited, err := editMap(m, f, extra)
	return append(out, edited...), err
}

func keysOf(m map[string]int64) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func changesKey(e Edit) []string {
	if e.Changes != nil {
		return []string{"ch"}
	}
	return nil
}

// editMap rewrites a msgpack map: f appends each value (raw msgpack in
// val, or nil for a key in extra that the map lacks) to out.
func editMap(m []byte, f func(key string, val, out []byte) ([]byte, error), extra []string) ([]byte, error) {
	n, rest, err := msgp.ReadMapHeaderBytes(m)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var body []byte
	count := n
	for range n {
		var key []byte
		if key, rest, err = msgp.ReadMapKeyZC(rest); err != nil {
			return nil, err
		}
		start := rest
		if rest, err = msgp.Skip(rest); err != nil {
			return nil, err
		}
		seen[string(key)] = true
		body = msgp.AppendString(body, string(key))
		if body, err = f(string(key), start[:len(start)-len(rest)], body); err != nil {
			return nil, err
		}
	}
	for _, k := range extra {
		if !seen[k] {
			count++
			body = msgp.AppendString(body, k)
			if body, err = f(k, msgp.AppendNil(nil), body); err != nil {
				return nil, err
			}
		}
	}
	if len(rest) != 0 {
		return nil, errors.New("snaptest: bytes after a map")
	}
	return append(msgp.AppendMapHeader(nil, count), body...), nil
}

// changeLog writes changes as the snapshot format does: uvarint(cycle −
// previous cycle), uvarint(setting), zigzag varint(value).
func changeLog(cs []sim.Change) []byte {
	var b []byte
	prev := int64(0)
	for _, c := range cs {
		b = binary.AppendUvarint(b, uint64(c.Cycle-prev))
		b = binary.AppendUvarint(b, uint64(c.Setting))
		b = binary.AppendVarint(b, c.Value)
		prev = c.Cycle
	}
	return b
}
