//go:build js

// Command wasm is the browser entry of lbsim: index.html loads it as
// lbsim.wasm. It reads the starting configuration from the page's query
// parameters (named like the `lbsim run` flags, plus speed and pause-at),
// shows any bad parameter in the page and in the canvas while running with
// the defaults, exposes the read-only hook window.lbsim.state() and runs
// the ebiten view.
//
// window.lbsim.state() returns a plain object: cycle, frames, ticks, paused,
// done, speed (cycles per second, or "max"), seed (a number, or a decimal
// string above 2^53), summary (exactly the JSON summary `lbsim run --cycles
// <cycle>` prints for the same settings, produced by encoding/json and
// parsed by JSON.parse) and problems (the messages about bad parameters).
package main

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/lbsim/lbsim/render"
	"github.com/lbsim/lbsim/render/preset"
	"github.com/lbsim/lbsim/render/scene"
)

func main() {
	search := js.Global().Get("location").Get("search").String()
	p := preset.Read(queryParams(search), preset.RandomSeed)
	showProblems(p.Problems)
	g, err := render.NewGame(p)
	if err != nil {
		showProblems([]string{err.Error()})
		return
	}
	installHook(g, p.Problems)
	ebiten.SetWindowTitle("lbsim — load balancer simulator")
	ebiten.SetRunnableOnUnfocused(true)
	if err := ebiten.RunGame(g); err != nil {
		showProblems([]string{"lbsim stopped: " + err.Error()})
	}
}

// queryParams splits a location.search string into parameters, in order.
// A parameter that does not decode is passed on raw so the preset reports
// it by name.
func queryParams(search string) []preset.Param {
	var ps []preset.Param
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
		ps = append(ps, preset.Param{Name: k, Value: v})
	}
	return ps
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
		sum, _ := json.Marshal(st.Summary)
		var seed any = float64(st.Seed)
		if st.Seed > 1<<53 {
			seed = strconv.FormatUint(st.Seed, 10)
		}
		var speed any = float64(st.Speed)
		if st.Speed == scene.MaxSpeed {
			speed = "max"
		}
		return map[string]any{
			"cycle":    float64(st.Cycle),
			"frames":   float64(st.Frames),
			"ticks":    float64(st.Ticks),
			"paused":   st.Paused,
			"done":     st.Done,
			"speed":    speed,
			"seed":     seed,
			"summary":  jsonParse.Invoke(string(sum)),
			"problems": probs,
		}
	})
	obj := js.Global().Get("Object").New()
	obj.Set("state", state)
	js.Global().Set("lbsim", obj)
}
