package preset

import (
	"net/url"
	"strings"
)

// QueryParams splits a location.search string ("?a=1&b=2") into
// parameters, in order, as the page reads its address. A parameter that
// does not decode is passed on raw so that Read reports it by name.
func QueryParams(search string) []Param {
	var ps []Param
	for _, kv := range strings.Split(strings.TrimPrefix(search, "?"), "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if dk, err := url.QueryUnescape(k); err == nil {
			k = dk
		}
		if dv, err := url.QueryUnescape(v); err == nil {
			v = dv
		}
		ps = append(ps, Param{Name: k, Value: v})
	}
	return ps
}
