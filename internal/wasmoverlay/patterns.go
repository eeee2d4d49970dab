package wasmoverlay

// The matchers here stand in for the three regular expressions ebiten
// v2.8.8's shader compiler compiles (GenerateWithoutRegexp copies each into
// the replacement of the file that used it): with them the page links no
// regexp package and none of the Unicode tables regexp/syntax brings. Each
// gives what its regular expression gives for every input, checked against
// package regexp by TestPatternsMatchRegexp and FuzzPatternsMatchRegexp.
// They import nothing, so the files they are copied into need no new import.

// textureVariablePattern matches as regexp.MustCompile(`\A__t(\d+)\z`).
type textureVariablePattern struct{}

// FindStringSubmatch returns s and the decimal digits after its "__t", or
// nil when s is not "__t" and one or more ASCII digits.
func (textureVariablePattern) FindStringSubmatch(s string) []string {
	if len(s) < 4 || s[:3] != "__t" {
		return nil
	}
	for i := 3; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return nil
		}
	}
	return []string{s, s[3:]}
}

// kageUnitPattern matches as regexp.MustCompile(
// `^[ \t\r\n]*//kage:unit\s+([^ \t\r\n]+)[ \t\r\n]*$`).
type kageUnitPattern struct{}

// FindStringSubmatch returns s and the unit's word, or nil. The word is
// what follows the directive's white space (\s: space, \t, \n, \f, \r) up
// to the trailing Go white space (space, \t, \r, \n); the white space after
// the directive takes every leading \f but one that the word needs.
func (kageUnitPattern) FindStringSubmatch(s string) []string {
	goSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
	i := 0
	for i < len(s) && goSpace(s[i]) {
		i++
	}
	const directive = "//kage:unit"
	if len(s)-i < len(directive) || s[i:i+len(directive)] != directive {
		return nil
	}
	i += len(directive)
	end := len(s)
	for end > i && goSpace(s[end-1]) {
		end--
	}
	word := i
	for word < end && (goSpace(s[word]) || s[word] == '\f') {
		word++
	}
	if word == end {
		word-- // the word is the last \f
	}
	if word <= i {
		return nil
	}
	for j := word; j < end; j++ {
		if goSpace(s[j]) {
			return nil
		}
	}
	return []string{s, s[word:end]}
}

// newlineRunsPattern matches as regexp.MustCompile(`\n\n+`).
type newlineRunsPattern struct{}

// ReplaceAllString returns src with each run of two or more newlines
// replaced by repl, which is used as it is (its caller passes "\n\n", in
// which regexp expands nothing).
func (newlineRunsPattern) ReplaceAllString(src, repl string) string {
	out := make([]byte, 0, len(src))
	for i := 0; i < len(src); {
		j := i
		for j < len(src) && src[j] == '\n' {
			j++
		}
		switch {
		case j-i >= 2:
			out = append(out, repl...)
		case j > i:
			out = append(out, '\n')
		default:
			out = append(out, src[i])
			j = i + 1
		}
		i = j
	}
	return string(out)
}
