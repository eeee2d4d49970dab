package fontstrip

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"

	"github.com/lbsim/lbsim/assets"
)

// fonts are the fonts assets embeds: the Go fonts as golang.org/x/image
// ships them, and assets' stripped copies.
var fonts = []struct {
	name           string
	original, ours []byte
}{
	{"Go Regular", goregular.TTF, assets.GoRegular},
	{"Go Bold", gobold.TTF, assets.GoBold},
}

// TestAssetsAreStripped: assets' fonts are what go generate ./assets makes
// from the Go fonts, and hold no hinting program.
func TestAssetsAreStripped(t *testing.T) {
	for _, f := range fonts {
		want, err := Strip(f.original)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(f.ours, want) {
			t.Errorf("%s: assets' copy is not Strip of x/image's font: run go generate ./assets", f.name)
		}
		tables, err := readTables(f.ours)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			if slices.Contains(dropped, tb.tag) {
				t.Errorf("%s: still has a %q table", f.name, tb.tag)
			}
		}
		if len(f.ours) > len(f.original)*6/10 {
			t.Errorf("%s: %d bytes, the original %d: less than 40%% saved", f.name, len(f.ours), len(f.original))
		}
	}
}

// TestStripKeepsWhatIsDrawn: for every glyph, its outline (at two sizes),
// advance and bounds; for every rune of the Basic Multilingual Plane, its
// glyph; the font's metrics and names; every other table byte for byte
// (kerning among them, where a font has it): the same in the stripped font
// as in the original.
func TestStripKeepsWhatIsDrawn(t *testing.T) {
	for _, f := range fonts {
		t.Run(f.name, func(t *testing.T) {
			a, err := sfnt.Parse(f.original)
			if err != nil {
				t.Fatal(err)
			}
			b, err := sfnt.Parse(f.ours)
			if err != nil {
				t.Fatalf("the stripped font does not parse: %v", err)
			}
			if a.NumGlyphs() != b.NumGlyphs() || a.NumGlyphs() < 600 {
				t.Fatalf("glyphs: %d, the original %d", b.NumGlyphs(), a.NumGlyphs())
			}
			sameGlyphs(t, a, b)
			sameRunes(t, a, b)
			sameTables(t, f.original, f.ours)
			for _, ppem := range []fixed.Int26_6{fixed.I(13), fixed.I(40)} {
				ma, errA := a.Metrics(nil, ppem, font.HintingNone)
				mb, errB := b.Metrics(nil, ppem, font.HintingNone)
				if ma != mb || errA != nil || errB != nil {
					t.Errorf("metrics at %v: %+v (%v), the original %+v (%v)", ppem, mb, errB, ma, errA)
				}
			}
			for _, id := range []sfnt.NameID{sfnt.NameIDCopyright, sfnt.NameIDFamily, sfnt.NameIDFull, sfnt.NameIDLicense} {
				na, _ := a.Name(nil, id)
				nb, _ := b.Name(nil, id)
				if na != nb {
					t.Errorf("name %d: %q, the original %q", id, nb, na)
				}
			}
		})
	}
}

// sameGlyphs compares every glyph's outline, advance and bounds.
func sameGlyphs(t *testing.T, a, b *sfnt.Font) {
	t.Helper()
	var bufA, bufB sfnt.Buffer
	segments := 0
	for i := range a.NumGlyphs() {
		x := sfnt.GlyphIndex(i)
		for _, ppem := range []fixed.Int26_6{fixed.I(13), fixed.I(40)} {
			sa, errA := a.LoadGlyph(&bufA, x, ppem, nil)
			sb, errB := b.LoadGlyph(&bufB, x, ppem, nil)
			if (errA == nil) != (errB == nil) || !slices.Equal(sa, sb) {
				t.Errorf("glyph %d at %v: outline %v (%v), the original %v (%v)", i, ppem, sb, errB, sa, errA)
			}
			segments += len(sa)
			va, errA := a.GlyphAdvance(&bufA, x, ppem, font.HintingNone)
			vb, errB := b.GlyphAdvance(&bufB, x, ppem, font.HintingNone)
			if va != vb || (errA == nil) != (errB == nil) {
				t.Errorf("glyph %d at %v: advance %v, the original %v", i, ppem, vb, va)
			}
			ba, aa, _ := a.GlyphBounds(&bufA, x, ppem, font.HintingNone)
			bb, ab, _ := b.GlyphBounds(&bufB, x, ppem, font.HintingNone)
			if ba != bb || aa != ab {
				t.Errorf("glyph %d at %v: bounds %v %v, the original %v %v", i, ppem, bb, ab, ba, aa)
			}
		}
	}
	if segments < 10000 {
		t.Errorf("only %d segments compared", segments)
	}
}

// sameRunes compares the glyph of every rune of the Basic Multilingual Plane.
func sameRunes(t *testing.T, a, b *sfnt.Font) {
	t.Helper()
	var bufA, bufB sfnt.Buffer
	mapped := 0
	for r := rune(0); r <= 0xFFFF; r++ {
		xa, _ := a.GlyphIndex(&bufA, r)
		xb, _ := b.GlyphIndex(&bufB, r)
		if xa != xb {
			t.Errorf("rune %U: glyph %d, the original %d", r, xb, xa)
		}
		if xa != 0 {
			mapped++
		}
	}
	if mapped < 600 {
		t.Errorf("only %d runes mapped", mapped)
	}
}

// sameTables checks that the stripped font has the original's tables but
// the dropped ones, each byte for byte the same but glyf, loca and post
// (compared through sfnt) and head's checksum adjustment.
func sameTables(t *testing.T, original, ours []byte) {
	t.Helper()
	ta, err := readTables(original)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := readTables(ours)
	if err != nil {
		t.Fatal(err)
	}
	data := map[string][]byte{}
	for _, x := range tb {
		data[x.tag] = x.data
	}
	for _, x := range ta {
		got, ok := data[x.tag]
		switch {
		case slices.Contains(dropped, x.tag):
			if ok {
				t.Errorf("%q kept", x.tag)
			}
		case !ok:
			t.Errorf("%q lost", x.tag)
		case x.tag == "head":
			a, b := bytes.Clone(x.data), bytes.Clone(got)
			clear(a[8:12])
			clear(b[8:12])
			if !bytes.Equal(a, b) {
				t.Errorf("head changed beyond its checksum adjustment")
			}
		case x.tag != "glyf" && x.tag != "loca" && x.tag != "post" && !bytes.Equal(x.data, got):
			t.Errorf("%q changed", x.tag)
		}
		delete(data, x.tag)
	}
	for tag := range data {
		t.Errorf("%q added", tag)
	}
	if checksum(ours) != 0xB1B0AFBA {
		t.Errorf("the font's checksum is %#x, want 0xB1B0AFBA", checksum(ours))
	}
}

// TestStripRefuses: what is not a TrueType font with glyphs is refused.
func TestStripRefuses(t *testing.T) {
	cut := func(n int) []byte { return goregular.TTF[:n] }
	otto := bytes.Clone(goregular.TTF)
	copy(otto, "OTTO")
	noGlyf := bytes.Clone(goregular.TTF)
	tables, err := readTables(noGlyf)
	if err != nil {
		t.Fatal(err)
	}
	for i, tb := range tables {
		if tb.tag == "glyf" {
			copy(noGlyf[12+16*i:], "xxxx")
		}
	}
	badLoca := bytes.Clone(goregular.TTF)
	for i, tb := range tables {
		if tb.tag == "loca" {
			off := binary.BigEndian.Uint32(badLoca[12+16*i+8:])
			binary.BigEndian.PutUint16(badLoca[off+2:], 0xFFFF)
		}
	}
	for name, ttf := range map[string][]byte{
		"empty": nil, "header only": cut(12), "directory cut": cut(40), "CFF": otto,
		"no glyf": noGlyf, "loca past glyf": badLoca,
	} {
		if _, err := Strip(ttf); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
