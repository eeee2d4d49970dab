//go:build js

package main

import (
	"slices"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/lbsim/lbsim/render/preset"

	"github.com/lbsim/lbsim/sim/snapshot"
)

// browser saves by downloading, loads through the page's file picker and
// shares through the page's address and the clipboard (see index.html).
type browser struct{}

func (browser) Save(data []byte, name string) (string, error) {
	u8 := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(u8, data)
	js.Global().Call("lbsimDownload", u8, name)
	return "saved " + name + " (" + strconv.Itoa(len(data)) + " bytes) to your downloads", nil
}

func (browser) Load() string {
	js.Global().Call("lbsimPickFile")
	return "choose a .lbsnap file (or drop one on the page)"
}

// Share returns the link: the page's address with #r=…, put in the
// address bar without reloading and copied to the clipboard when allowed.
func (browser) Share(data []byte, keepView bool) (string, error) {
	link := shareLink(data, keepView)
	return "share link in the address bar and the clipboard (" + strconv.Itoa(len(link)) + " characters)", nil
}

// shareLink puts the link of data in the address bar (without reloading)
// and the clipboard, and returns it. The page's query is kept, without its
// view settings (speed, pause-at, present, theory, lesson) unless keepView.
func shareLink(data []byte, keepView bool) string {
	loc := js.Global().Get("location")
	search := loc.Get("search").String()
	if !keepView {
		search = dropViewParams(search)
	}
	base := loc.Get("origin").String() + loc.Get("pathname").String() + search
	frag := snapshot.Fragment(data)
	js.Global().Get("history").Call("replaceState", js.Null(), "", frag)
	js.Global().Call("lbsimCopy", base+frag)
	return base + frag
}

// dropViewParams removes the view's own parameters from a query string
// ("?seed=1&speed=60" → "?seed=1").
func dropViewParams(search string) string {
	var kept []string
	for _, kv := range strings.Split(strings.TrimPrefix(search, "?"), "&") {
		k, _, _ := strings.Cut(kv, "=")
		if kv == "" || slices.Contains(preset.ViewOnlyNames(), k) {
			continue
		}
		kept = append(kept, kv)
	}
	if len(kept) == 0 {
		return ""
	}
	return "?" + strings.Join(kept, "&")
}
