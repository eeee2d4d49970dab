package suggest

import (
	"fmt"
	"strings"
	"testing"
)

func TestNearest(t *testing.T) {
	names := []string{"servers", "service", "seed", "cycles", "replications", "rate", "retries"}
	tests := []struct {
		given, want string
	}{
		{"sevrers", "servers"},   // a swap: 2 edits
		{"seeds", "seed"},        // one more letter
		{"repl", "replications"}, // an abbreviation of one name
		{"serv", "seed"},         // the start of two names: no abbreviation, but 2 edits from seed
		{"cycle", "cycles"},      // one fewer
		{"colour", ""},           // a word from elsewhere
		{"rat", "rate"},          // one fewer; "rate" comes before "retries"
		{"", ""},                 // nothing given
		{strings.Repeat("x", 100), ""},
	}
	for _, tt := range tests {
		if got := Nearest(tt.given, names); got != tt.want {
			t.Errorf("Nearest(%q) = %q, want %q", tt.given, got, tt.want)
		}
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"seed", "seed", 0},
		{strings.Repeat("a", 65), "a", 65}, // beyond 64 bytes: its length, whatever b is
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// A flag mistyped, a word from elsewhere, an abbreviation.
func ExampleNearest() {
	flags := []string{"servers", "cycles", "seed", "replications"}
	fmt.Printf("%q %q %q\n", Nearest("cylces", flags), Nearest("colour", flags), Nearest("repl", flags))
	// Output: "cycles" "" "replications"
}
