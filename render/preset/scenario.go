package preset

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/lbsim/lbsim/scenario"
	"github.com/lbsim/lbsim/sim"
)

// FromScenario turns a scenario file (lbsim run --config, --save-config)
// into parameters, as the page's query and the window's flags give them,
// leaving out the keys a given name already has (a flag on the window's
// command line replaces the file's value, lists included). The keys the
// page and the window cannot take (trace, service-file: they read no
// files; max-queued: theirs is fixed) are reported in left, each with why.
func FromScenario(s *scenario.Scenario, given func(name string) bool) (params []Param, left []string) {
	for _, e := range s.Entries {
		if given != nil && given(e.Key) {
			continue
		}
		if !slices.Contains(sim.ConfigNames(), e.Key) && e.Key != scenario.KeySet && e.Key != scenario.KeyFault {
			why := "the view reads no files"
			if e.Key == scenario.KeyMaxQueued {
				why = "the view's bound is its own"
			}
			left = append(left, fmt.Sprintf("%s (%s)", e.Key, why))
			continue
		}
		for _, v := range e.Values {
			params = append(params, Param{Name: e.Key, Value: v})
		}
	}
	return params, left
}

// EmbedName is the page's own parameter that shows it embedded in slides
// (embed=1: no control bar): a scenario file loaded keeps it, as it keeps
// the view's (ViewOnlyNames).
const EmbedName = "embed"

// MaxQuery is the longest query string ScenarioQuery gives, in bytes: an
// address much longer is refused by common web servers (nginx's default
// is 8 KB for the request line; `make serve` answers 431 at about 1 MB),
// and the page would be gone.
const MaxQuery = 8000

// ScenarioQuery reads a scenario file's text (named name) into a query
// string for the page ("?servers=10&rate=0.6…"), keeping the view-only
// parameters (ViewOnlyNames) and embed of the current query search; left
// are the keys it leaves out (FromScenario). A query longer than MaxQuery
// is refused: the file is for lbsim run --config or lbsim-desktop
// --config.
func ScenarioQuery(name, text, search string) (query string, left []string, err error) {
	s, err := scenario.Parse(name, []byte(text))
	if err != nil {
		return "", nil, err
	}
	var parts []string
	for _, kv := range strings.Split(strings.TrimPrefix(search, "?"), "&") {
		k, _, _ := strings.Cut(kv, "=")
		if dk, err := url.QueryUnescape(k); err == nil && (slices.Contains(ViewOnlyNames(), dk) || dk == EmbedName) {
			parts = append(parts, kv)
		}
	}
	params, left := FromScenario(s, nil)
	for _, p := range params {
		parts = append(parts, url.QueryEscape(p.Name)+"="+url.QueryEscape(p.Value))
	}
	query = "?" + strings.Join(parts, "&")
	if len(query) > MaxQuery {
		return "", nil, &scenario.Error{File: name, Msg: fmt.Sprintf(
			"its settings make an address of %d bytes, more than the %d a web address can carry (servers refuse longer ones): run it with lbsim run --config or lbsim-desktop --config, or give the page fewer values",
			len(query), MaxQuery)}
	}
	return query, left, nil
}
