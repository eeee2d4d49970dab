package wasmoverlay

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// patternInputs are inputs for the three matchers: the shapes ebiten's own
// tests and the page's shaders give, and the edges of each expression.
var patternInputs = []string{
	"", "_", "__t", "__t0", "__t1", "__t12", "__t007", "__t1a", "__ta", "__T1", "___t1", "__t1\n", " __t1", "__t١",
	"//kage:unit pixels", "//kage:unit texels", "//kage:unit", "//kage:unit ", "//kage:unitpixels",
	"  \t//kage:unit\tpixels  \r", "//kage:unit pixels foo", "//kage:unit \fpixels", "//kage:unit \f",
	"//kage:unit \f\f", "//kage:unit\f", "//kage:unit\f\f\f x", "//kage:unit x\f", "//kage:unit x\f ",
	"//kage:unit \f \f", "// kage:unit pixels", "//kage:unit\v pixels", "x//kage:unit pixels",
	"//kage:unit p\xffx", "//kage:unit \xff", "\n//kage:unit pixels\n", "//kage:unit pixels\x00",
	"package main\n\n\n//kage:unit pixels\n", "a\nb", "a\n\nb", "a\n\n\n\nb\n", "\n\n", "\n", "\n\n\n",
	"x\n\ny\n\n\nz", "\r\n\r\n", " \n \n",
}

// patternCases pairs each matcher with the regular expression it stands in for.
func patternCases() []struct {
	expr string
	find func(string) []string
	repl func(string, string) string
} {
	return []struct {
		expr string
		find func(string) []string
		repl func(string, string) string
	}{
		{`\A__t(\d+)\z`, textureVariablePattern{}.FindStringSubmatch, nil},
		{`^[ \t\r\n]*//kage:unit\s+([^ \t\r\n]+)[ \t\r\n]*$`, kageUnitPattern{}.FindStringSubmatch, nil},
		{`\n\n+`, nil, newlineRunsPattern{}.ReplaceAllString},
	}
}

// checkPatterns compares every matcher with its regular expression on s.
func checkPatterns(t *testing.T, s string) {
	t.Helper()
	for _, c := range patternCases() {
		re := regexp.MustCompile(c.expr)
		if c.find != nil {
			if got, want := c.find(s), re.FindStringSubmatch(s); !slices.Equal(got, want) || (got == nil) != (want == nil) {
				t.Errorf("%s on %q: %q, regexp gives %q", c.expr, s, got, want)
			}
		}
		if c.repl != nil {
			for _, r := range []string{"\n\n", "", "x"} {
				if got, want := c.repl(s, r), re.ReplaceAllString(s, r); got != want {
					t.Errorf("%s on %q with %q: %q, regexp gives %q", c.expr, s, r, got, want)
				}
			}
		}
	}
}

// TestPatternsMatchRegexp: each matcher gives what its regular expression
// gives, on the edges above, on every line of ebiten's test shaders and the
// built-in shaders, and on every string of up to four bytes drawn from the
// bytes that matter.
func TestPatternsMatchRegexp(t *testing.T) {
	for _, s := range patternInputs {
		checkPatterns(t, s)
	}
	for _, f := range Files {
		src := ebitenSource(t, f)
		for _, line := range strings.Split(string(src), "\n") {
			checkPatterns(t, line)
		}
		checkPatterns(t, string(src))
	}
	alphabet := []string{" ", "\t", "\r", "\n", "\f", "\v", "x", "\xff", "//kage:unit", "__t", "1"}
	var all func(prefix string, n int)
	all = func(prefix string, n int) {
		checkPatterns(t, prefix)
		if n == 0 {
			return
		}
		for _, a := range alphabet {
			all(prefix+a, n-1)
		}
	}
	all("", 4)
}

// FuzzPatternsMatchRegexp: each matcher gives what its regular expression
// gives on any input.
func FuzzPatternsMatchRegexp(f *testing.F) {
	for _, s := range patternInputs {
		f.Add(s)
	}
	f.Fuzz(checkPatterns)
}
