//go:build js

// Command wasm is the browser entry of lbsim: index.html loads it as
// lbsim.wasm. It reads the starting configuration from the page's query
// parameters (named like the `lbsim run` flags, plus speed and pause-at),
// shows any bad parameter in the page and in the canvas while running with
// the defaults, exposes the read-only hook window.lbsim.state() and runs
// the ebiten view.
//
// window.lbsim.state() returns a plain object: cycle, frames, painted (the
// frames actually painted: only those whose picture changed), ticks, paused,
// done, speed (cycles per second, or "max"), seed (a number, or a decimal
// string above 2^53), summary (exactly the JSON summary `lbsim run --cycles
// <cycle>` prints for the same settings and changes, produced by
// encoding/json and parsed by JSON.parse), problems (the messages about bad
// parameters), hash (the model's state hash, a decimal string), replaying,
// error (the last load or link error, or ""), message (the banner's text),
// changes (the changes that took effect, as `--set` values
// "CYCLE:NAME=VALUE"), config (the settings in effect), controls (each
// control's id, rectangle in canvas pixels and value), servers (the same
// for the first 64 server boxes of each balancer, value = idle, busy,
// retiring or down, then ",slow", ",failing" or ",hanging" for a gray
// server; in the compare view "LANE/ID"), focus, present,
// theory, lanes (the compare view's lanes, each {label, summary}: the
// summary as `lbsim compare --json` gives it at this cycle; empty for a
// single run), lane (the focused lane, from 0), reducedMotion (the
// browser's prefers-reduced-motion is on: no request flies) and embedded
// (?embed=1: no control bar, the canvas not focused on load).
//
// window.lbsim.loadConfig(name, text) reads a scenario file (TOML, as
// lbsim run --config) into the query and reloads the page with it;
// index.html hands it a .toml file picked or dropped.
//
// window.lbsim.saveBytes() returns the run's snapshot as a Uint8Array (or
// throws); save() downloads it; load(bytes) replays a snapshot and
// loadLink(text) a share link, both returning "" or the error message;
// share() puts the link in the address and the clipboard and returns it.
// words() returns the run in words, {status, said, count} (see
// scene.Words): index.html reads it into its live region, a text of the
// picture for a screen reader. quit() ends the program after the next tick, as a crash would: the page
// then says that lbsim has stopped (tests use it). A page opened with
// #r=… replays that link.
package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/lbsim/lbsim/render"
	"github.com/lbsim/lbsim/render/preset"
	"github.com/lbsim/lbsim/render/scene"
	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/version"
)

func main() {
	search := js.Global().Get("location").Get("search").String()
	params, embedded := embedParam(preset.QueryParams(search))
	p := preset.Read(params, preset.RandomSeed)
	showProblems(p.Problems)
	// The page shows the problems in its own box (#message, wrapped): the
	// canvas does not repeat them in a second one.
	shown := p
	shown.Problems = nil
	g, err := render.NewGame(shown)
	if err != nil {
		showProblems([]string{err.Error()})
		return
	}
	installHook(g, p.Problems)
	g.SetPlatform(browser{})
	g.OnLesson(func(query string) {
		// The address says which lesson or comparison is open, ready to copy.
		if embedded {
			query += "&" + preset.EmbedName + "=1"
		}
		js.Global().Get("history").Call("replaceState", js.Null(), "", "?"+query)
	})
	// A share link in the address replays, on opening and when it changes.
	loadHash := func() {
		if h := js.Global().Get("location").Get("hash").String(); strings.HasPrefix(h, "#r=") {
			g.Do(func(s *scene.Session) {
				if err := s.LoadLink(h); err != nil {
					showProblems([]string{err.Error()})
					s.Say("", false) // one box: the page's
				}
			})
		}
	}
	reducedMotion(g)
	if embedded {
		// In slides: no control bar (the keys work), and the canvas takes
		// the keyboard only when clicked (ebiten focuses it on a click).
		g.Do(func(s *scene.Session) { s.SetEmbedded(true) })
		js.Global().Get("document").Get("body").Get("classList").Call("add", "embedded")
	}
	loadHash()
	js.Global().Call("addEventListener", "hashchange", js.FuncOf(func(js.Value, []js.Value) any {
		loadHash()
		return nil
	}))
	ebiten.SetWindowTitle("lbsim — load balancer simulator")
	ebiten.SetRunnableOnUnfocused(true)
	if err := ebiten.RunGameWithOptions(g, &ebiten.RunGameOptions{InitUnfocused: embedded}); err != nil {
		showProblems([]string{"lbsim stopped: " + err.Error()})
	}
}

// reducedMotion follows the browser's prefers-reduced-motion: while the
// viewer asks for less motion no request flies (the rest works as ever).
func reducedMotion(g *render.Game) {
	if js.Global().Get("matchMedia").Type() != js.TypeFunction {
		return
	}
	q := js.Global().Call("matchMedia", "(prefers-reduced-motion: reduce)")
	follow := func() {
		on := q.Get("matches").Bool()
		g.Do(func(s *scene.Session) { s.SetReducedMotion(on) })
	}
	follow()
	q.Call("addEventListener", "change", js.FuncOf(func(js.Value, []js.Value) any {
		follow()
		return nil
	}))
}

// embedParam takes embed=1 (the page in an iframe of slides) out of
// params, the page's own parameter beside the preset's, and says whether
// it was on.
func embedParam(params []preset.Param) ([]preset.Param, bool) {
	var out []preset.Param
	on := false
	for _, p := range params {
		if p.Name == preset.EmbedName {
			on = p.Value == "1" || p.Value == "true" || p.Value == ""
			continue
		}
		out = append(out, p)
	}
	return out, on
}

// showProblems writes the messages into the page's #message element (see
// index.html), so they stay readable beside the canvas.
func showProblems(msgs []string) {
	if len(msgs) == 0 {
		return
	}
	if show := js.Global().Get("lbsimShowMessage"); show.Type() == js.TypeFunction {
		show.Invoke(strings.Join(msgs, "\n"))
	}
}

// installHook defines window.lbsim.state().
func installHook(g *render.Game, problems []string) {
	probs := make([]any, len(problems))
	for i, s := range problems {
		probs[i] = s
	}
	jsonParse := js.Global().Get("JSON").Get("parse")
	state := js.FuncOf(func(js.Value, []js.Value) any {
		st := g.State()
		sum, _ := json.Marshal(version.Stamp(&st.Summary)) // as lbsim run --json
		var seed any = float64(st.Seed)
		if st.Seed > 1<<53 {
			seed = strconv.FormatUint(st.Seed, 10)
		}
		var speed any = float64(st.Speed)
		if st.Speed == scene.MaxSpeed {
			speed = "max"
		}
		changes := make([]any, len(st.Changes))
		for i, c := range st.Changes {
			changes[i] = c.String()
		}
		controls, servers := rects(st.Controls), rects(st.Servers)
		lanes := make([]any, len(st.Lanes))
		for i, l := range st.Lanes {
			ls, _ := json.Marshal(l.Summary)
			lanes[i] = map[string]any{"label": l.Label, "summary": jsonParse.Invoke(string(ls))}
		}
		cfg := st.Config
		return map[string]any{
			"cycle":         float64(st.Cycle),
			"frames":        float64(st.Frames),
			"painted":       float64(st.Painted),
			"ticks":         float64(st.Ticks),
			"paused":        st.Paused,
			"done":          st.Done,
			"speed":         speed,
			"seed":          seed,
			"summary":       jsonParse.Invoke(string(sum)),
			"problems":      probs,
			"hash":          strconv.FormatUint(st.Hash, 10),
			"replaying":     st.Replaying,
			"error":         st.Error,
			"message":       st.Message,
			"step":          st.Step,
			"changes":       changes,
			"controls":      controls,
			"servers":       servers,
			"gates":         rects(st.Gates),
			"focus":         st.Focus,
			"present":       st.Present,
			"theory":        st.Theory,
			"reducedMotion": st.ReducedMotion,
			"embedded":      st.Embedded,
			"lanes":         lanes,
			"lane":          float64(st.Lane),
			"config":        configOf(&cfg),
		}
	})
	snapBytes := func() (js.Value, error) {
		var data []byte
		var err error
		g.Do(func(s *scene.Session) { data, err = s.Snapshot() })
		if err != nil {
			return js.Undefined(), err
		}
		u8 := js.Global().Get("Uint8Array").New(len(data))
		js.CopyBytesToJS(u8, data)
		return u8, nil
	}
	saveBytes := js.FuncOf(func(js.Value, []js.Value) any {
		u8, err := snapBytes()
		if err != nil {
			return js.Global().Get("Error").New(err.Error())
		}
		return u8
	})
	save := js.FuncOf(func(js.Value, []js.Value) any {
		g.Do(func(s *scene.Session) { s.Apply(scene.Save) })
		return nil
	})
	load := js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) < 1 || args[0].Get("length").Type() != js.TypeNumber {
			return "load: want the snapshot's bytes (a Uint8Array)"
		}
		data := make([]byte, args[0].Get("length").Int())
		js.CopyBytesToGo(data, js.Global().Get("Uint8Array").New(args[0]))
		msg := ""
		g.Do(func(s *scene.Session) {
			if err := s.Load(data); err != nil {
				msg = err.Error()
				s.Say("", false) // one box: the page's
			}
		})
		if msg != "" {
			showProblems([]string{msg})
		}
		return msg
	})
	loadLink := js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) < 1 {
			return "loadLink: want a link"
		}
		msg := ""
		g.Do(func(s *scene.Session) {
			if err := s.LoadLink(args[0].String()); err != nil {
				msg = err.Error()
				s.Say("", false) // one box: the page's
			}
		})
		if msg != "" {
			showProblems([]string{msg})
		}
		return msg
	})
	share := js.FuncOf(func(js.Value, []js.Value) any {
		var data []byte
		var err error
		g.Do(func(s *scene.Session) { data, err = s.Snapshot() })
		if err != nil {
			return js.Global().Get("Error").New(err.Error())
		}
		return shareLink(data, true)
	})
	// loadConfig(name, text) reads a scenario file (lbsim run
	// --save-config) into the page's query, as if its settings had been
	// given as query parameters, keeping the view's own (speed, pause-at,
	// present, theory) and embed; the page then reloads with it. A file
	// whose query an address cannot carry is refused (MaxQuery). It returns "" or
	// the error message, which is also shown.
	loadConfig := js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) < 2 || args[1].Type() != js.TypeString {
			return "loadConfig: want the file's name and its text"
		}
		loc := js.Global().Get("location")
		query, left, err := preset.ScenarioQuery(args[0].String(), args[1].String(), loc.Get("search").String())
		if err != nil {
			showProblems([]string{err.Error()})
			return err.Error()
		}
		if len(left) > 0 {
			js.Global().Get("sessionStorage").Call("setItem", "lbsimNote", args[0].String()+": left out "+strings.Join(left, ", "))
		}
		loc.Set("search", query)
		return ""
	})
	obj := js.Global().Get("Object").New()
	obj.Set("words", js.FuncOf(func(js.Value, []js.Value) any {
		w := g.State().Words
		said := make([]any, len(w.Said))
		for i, t := range w.Said {
			said[i] = t
		}
		return map[string]any{"status": w.Status, "said": said, "count": float64(w.Count)}
	}))
	obj.Set("loadConfig", loadConfig)
	obj.Set("state", state)
	obj.Set("saveBytes", saveBytes)
	obj.Set("save", save)
	obj.Set("load", load)
	obj.Set("loadLink", loadLink)
	obj.Set("share", share)
	obj.Set("quit", js.FuncOf(func(js.Value, []js.Value) any {
		g.Quit()
		return nil
	}))
	js.Global().Set("lbsim", obj)
}

// rects gives the controls or server boxes to JavaScript as objects with
// id, x, y, w, h and value.
func rects(cs []scene.Control) []any {
	out := make([]any, len(cs))
	for i, c := range cs {
		out[i] = map[string]any{"id": c.ID, "x": float64(c.R.X), "y": float64(c.R.Y), "w": float64(c.R.W), "h": float64(c.R.H), "value": c.Value}
	}
	return out
}

// configOf is the settings in effect as state().config shows them: cycles
// and every setting --set may change (the settings table's changeable
// rows), whole numbers as numbers, true/false as booleans, the rest
// (rates, factors, shares, names) as written.
func configOf(cfg *sim.Config) map[string]any {
	out := map[string]any{"cycles": float64(cfg.Cycles)}
	for i := range sim.Rows() {
		r := &sim.Rows()[i]
		if !r.Changeable {
			continue
		}
		v, _ := r.Load(cfg)
		switch {
		case r.IsBool():
			out[r.Name] = v != 0
		case r.Whole():
			out[r.Name] = float64(v)
		default:
			out[r.Name] = r.Get(cfg)
		}
	}
	return out
}
