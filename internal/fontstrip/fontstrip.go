// Package fontstrip removes from a TrueType font what the renderer's font
// code (golang.org/x/image/font/sfnt, through opentype) never reads: the
// hinting programs (each glyph's instructions and the fpgm, prep and cvt
// tables) and the glyph names of the post table. sfnt has no TrueType
// interpreter, so outlines, metrics, kerning and the character map, and so
// every pixel drawn, stay the same (the package's tests compare them glyph by
// glyph); the Go fonts lose half their bytes. assets' fonts are made with
// it (go generate ./assets).
package fontstrip

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// dropped are the tables only a TrueType interpreter reads.
var dropped = []string{"cvt ", "fpgm", "prep"}

// table is one table of a font: its tag and data.
type table struct {
	tag  string
	data []byte
}

// Strip returns ttf without hinting instructions and glyph names. It
// accepts a TrueType font whose glyphs are simple (composite glyphs are kept
// as they are, their instructions with them) and refuses anything else.
func Strip(ttf []byte) ([]byte, error) {
	tables, err := readTables(ttf)
	if err != nil {
		return nil, err
	}
	get := func(tag string) []byte {
		for _, t := range tables {
			if t.tag == tag {
				return t.data
			}
		}
		return nil
	}
	head, maxp, loca, glyf := get("head"), get("maxp"), get("loca"), get("glyf")
	if len(head) < 54 || len(maxp) < 6 || loca == nil || glyf == nil {
		return nil, errors.New("not a TrueType font with head, maxp, loca and glyf tables")
	}
	short := binary.BigEndian.Uint16(head[50:]) == 0
	newGlyf, newLoca, err := stripGlyphs(glyf, loca, int(binary.BigEndian.Uint16(maxp[4:])), short)
	if err != nil {
		return nil, err
	}
	var out []table
	for _, t := range tables {
		switch {
		case slices.Contains(dropped, t.tag):
			continue
		case t.tag == "glyf":
			t.data = newGlyf
		case t.tag == "loca":
			t.data = newLoca
		case t.tag == "post" && len(t.data) >= 32:
			t.data = slices.Clone(t.data[:32])
			binary.BigEndian.PutUint32(t.data, 0x30000) // version 3: no glyph names
		case t.tag == "head":
			t.data = slices.Clone(t.data)
		}
		out = append(out, t)
	}
	return writeTables(binary.BigEndian.Uint32(ttf), out), nil
}

// readTables returns the tables of ttf in the order of its directory.
func readTables(ttf []byte) ([]table, error) {
	if len(ttf) < 12 {
		return nil, errors.New("too short for a font")
	}
	if v := binary.BigEndian.Uint32(ttf); v != 0x00010000 && v != 0x74727565 { // 1.0 or "true"
		return nil, fmt.Errorf("not a TrueType font (version %#x)", v)
	}
	n := int(binary.BigEndian.Uint16(ttf[4:]))
	if len(ttf) < 12+16*n {
		return nil, errors.New("table directory cut short")
	}
	tables := make([]table, 0, n)
	for i := range n {
		rec := ttf[12+16*i:]
		off, length := binary.BigEndian.Uint32(rec[8:]), binary.BigEndian.Uint32(rec[12:])
		if uint64(off)+uint64(length) > uint64(len(ttf)) {
			return nil, fmt.Errorf("table %q runs past the end", rec[:4])
		}
		tables = append(tables, table{string(rec[:4]), ttf[off : off+length]})
	}
	return tables, nil
}

// stripGlyphs returns glyf and loca with every simple glyph's instructions
// removed (its instructionLength 0), each glyph padded to the alignment the
// loca format needs.
func stripGlyphs(glyf, loca []byte, numGlyphs int, short bool) (newGlyf, newLoca []byte, err error) {
	offset := func(i int) (int, error) {
		if short {
			if 2*i+2 > len(loca) {
				return 0, errors.New("loca cut short")
			}
			return 2 * int(binary.BigEndian.Uint16(loca[2*i:])), nil
		}
		if 4*i+4 > len(loca) {
			return 0, errors.New("loca cut short")
		}
		return int(binary.BigEndian.Uint32(loca[4*i:])), nil
	}
	align := 4
	if short {
		align = 2
	}
	offsets := make([]int, 0, numGlyphs+1)
	for i := range numGlyphs {
		from, err := offset(i)
		if err != nil {
			return nil, nil, err
		}
		to, err := offset(i + 1)
		if err != nil {
			return nil, nil, err
		}
		if from > to || to > len(glyf) {
			return nil, nil, fmt.Errorf("glyph %d: bad offsets %d–%d", i, from, to)
		}
		offsets = append(offsets, len(newGlyf))
		g, err := stripGlyph(glyf[from:to])
		if err != nil {
			return nil, nil, fmt.Errorf("glyph %d: %w", i, err)
		}
		newGlyf = append(newGlyf, g...)
		for len(newGlyf)%align != 0 {
			newGlyf = append(newGlyf, 0)
		}
	}
	offsets = append(offsets, len(newGlyf))
	for _, o := range offsets {
		if short {
			newLoca = binary.BigEndian.AppendUint16(newLoca, uint16(o/2))
		} else {
			newLoca = binary.BigEndian.AppendUint32(newLoca, uint32(o))
		}
	}
	return newGlyf, newLoca, nil
}

// stripGlyph returns a simple glyph without its instructions; an empty or
// composite glyph as it is.
func stripGlyph(g []byte) ([]byte, error) {
	if len(g) == 0 {
		return nil, nil
	}
	if len(g) < 10 {
		return nil, errors.New("shorter than a glyph header")
	}
	contours := int16(binary.BigEndian.Uint16(g))
	if contours < 0 {
		return g, nil
	}
	at := 10 + 2*int(contours)
	if at+2 > len(g) {
		return nil, errors.New("cut short before its instructions")
	}
	n := int(binary.BigEndian.Uint16(g[at:]))
	if at+2+n > len(g) {
		return nil, errors.New("instructions run past the glyph")
	}
	out := slices.Clone(g[:at+2])
	out[at], out[at+1] = 0, 0
	return append(out, g[at+2+n:]...), nil
}

// writeTables returns a font of the tables (version as given), its
// directory sorted by tag, each table 4-byte aligned, the checksums and
// head's checkSumAdjustment computed as the format says.
func writeTables(version uint32, tables []table) []byte {
	slices.SortFunc(tables, func(a, b table) int {
		if a.tag < b.tag {
			return -1
		}
		if a.tag > b.tag {
			return 1
		}
		return 0
	})
	n := len(tables)
	entry := 0
	for 1<<(entry+1) <= n {
		entry++
	}
	out := binary.BigEndian.AppendUint32(nil, version)
	out = binary.BigEndian.AppendUint16(out, uint16(n))
	out = binary.BigEndian.AppendUint16(out, uint16(16<<entry))
	out = binary.BigEndian.AppendUint16(out, uint16(entry))
	out = binary.BigEndian.AppendUint16(out, uint16(16*n-16<<entry))
	headAt := -1
	off := 12 + 16*n
	for _, t := range tables {
		if t.tag == "head" {
			binary.BigEndian.PutUint32(t.data[8:], 0)
		}
		out = append(out, t.tag...)
		out = binary.BigEndian.AppendUint32(out, checksum(t.data))
		out = binary.BigEndian.AppendUint32(out, uint32(off))
		out = binary.BigEndian.AppendUint32(out, uint32(len(t.data)))
		off += (len(t.data) + 3) &^ 3
	}
	for _, t := range tables {
		if t.tag == "head" {
			headAt = len(out)
		}
		out = append(out, t.data...)
		for len(out)%4 != 0 {
			out = append(out, 0)
		}
	}
	if headAt >= 0 {
		binary.BigEndian.PutUint32(out[headAt+8:], 0xB1B0AFBA-checksum(out))
	}
	return out
}

// checksum is the sum of b as big-endian uint32s, zero-padded.
func checksum(b []byte) uint32 {
	var sum uint32
	for i := 0; i < len(b); i += 4 {
		var w [4]byte
		copy(w[:], b[i:])
		sum += binary.BigEndian.Uint32(w[:])
	}
	return sum
}
