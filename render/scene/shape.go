package scene

import (
	"math"
	"slices"

	"github.com/lbsim/lbsim/sim"
)

// The service shape's controls: a choice of the shape (the model's
// `service` setting) and one of its parameter (cv for lognormal, α for
// Pareto, p for bimodal). Both are starting settings of the request
// stream: choosing one restarts the run, every lane with it (the lanes of
// the compare view share one request stream).

// Widget ids of the shape's controls: the shape has the setting's name;
// the parameter is WShapeParam.
const (
	WService    = "service"
	WShapeParam = "shape-param"
)

// shapeParam is the parameter a shape offers in the page: its `--set`
// name, the symbol the control shows, and the values it steps through.
type shapeParam struct {
	name   string
	symbol string
	values []sim.Decimal
	read   func(c *sim.Config) sim.Decimal
}

func decimals(vs ...float64) []sim.Decimal {
	out := make([]sim.Decimal, len(vs))
	for i, v := range vs {
		out[i] = sim.Decimal(math.Round(v * sim.DecimalScale))
	}
	return out
}

// shapeParams are the shapes' parameters in the page; a shape not here
// has none.
var shapeParams = map[sim.Service]shapeParam{
	sim.Lognormal: {"service-cv", "cv", decimals(0.5, 1, 2, 3, 5, 10), (*sim.Config).CV},
	sim.Pareto:    {"service-shape", "α", decimals(1.1, 1.5, 2, 2.5, 3, 4), (*sim.Config).Alpha},
	sim.Bimodal:   {"long-share", "p", decimals(0, 0.001, 0.01, 0.05, 0.1, 0.5), func(c *sim.Config) sim.Decimal { return c.LongShare }},
}

// pageShapes are the shapes the selector offers: every shape but
// empirical, whose values come from a file (a run loaded with one keeps
// it, and the selector then offers it too).
func pageShapes(c sim.Config) []sim.Service {
	var out []sim.Service
	for i := range sim.ServiceNames() {
		if sv := sim.Service(i); sv != sim.Empirical || len(c.ServiceValues) > 0 {
			out = append(out, sv)
		}
	}
	return out
}

// serviceWidget is the shape's choice.
var serviceWidget = widget{id: WService, kind: kChoice, label: "shape", width: 112, row: rowSliders,
	choices: sim.ServiceNames,
	get:     func(s *Session) int64 { return int64(s.focused().Config().Service) },
	format: func(v int64) string {
		if v < 0 || v >= int64(len(sim.ServiceNames())) {
			return "?"
		}
		return sim.ServiceNames()[v]
	},
	next: func(s *Session, cur int64, step int) int64 {
		shapes := pageShapes(s.focused().Config())
		i := max(slices.Index(shapes, sim.Service(cur)), 0)
		return int64(shapes[(i+step+len(shapes))%len(shapes)])
	},
	set: func(s *Session, v int64) {
		s.restartShape(WService, sim.ServiceNames()[v])
	},
}

// shapeParamWidget is the parameter's choice; its value is the index of
// the shape's parameter in its values (the nearest one for a value set
// otherwise, say by a link).
var shapeParamWidget = widget{id: WShapeParam, kind: kChoice, label: "parameter", width: 100, row: rowSliders,
	get: func(s *Session) int64 {
		c := s.focused().Config()
		p, ok := shapeParams[c.Service]
		if !ok {
			return 0
		}
		return int64(nearest(p.values, p.read(&c)))
	},
	next: func(s *Session, cur int64, step int) int64 {
		p, ok := shapeParams[s.focused().Config().Service]
		if !ok {
			return cur
		}
		return min(max(cur+int64(step), 0), int64(len(p.values)-1))
	},
	set: func(s *Session, v int64) {
		if p, ok := shapeParams[s.focused().Config().Service]; ok {
			s.restartShape(p.name, p.values[v].String())
		}
	},
	text: func(s *Session) string {
		c := s.focused().Config()
		p, ok := shapeParams[c.Service]
		if !ok {
			return "—"
		}
		return p.symbol + " " + p.read(&c).String()
	},
	unused: func(c sim.Config) string {
		if _, ok := shapeParams[c.Service]; ok {
			return ""
		}
		return "none"
	},
	format: func(v int64) string { return "" },
}

// nearest returns the index of the value of vs nearest to v.
func nearest(vs []sim.Decimal, v sim.Decimal) int {
	best := 0
	for i, w := range vs {
		if abs64(int64(w-v)) < abs64(int64(vs[best]-v)) {
			best = i
		}
	}
	return best
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// restartShape restarts every lane with the shape setting name set to
// value (sim.Config.Set), saying why when the model refuses it. A shape
// that follows the mean time, chosen when none is set (uniform's runs),
// gets the mean of the shape before it, so the load stays the same.
func (s *Session) restartShape(name, value string) {
	err := s.restartLanes(func(c *sim.Config) error {
		if name == WService && c.MeanService == 0 {
			c.MeanService = max(int(math.Round(c.NominalMean())), 1)
		}
		return c.Set(name, value)
	}, true)
	if err != nil {
		s.say(name+" = "+value+" refused: "+err.Error(), true)
	}
}

// LongRequest is how many times the mean a request's time must be for
// its box to be drawn longer: each doubling beyond the mean adds half a
// box, up to three boxes.
const LongRequest = 2

// requestLength returns how many box lengths a request of time cycles is
// drawn, mean being the shape's mean time: 1 below LongRequest × mean,
// then 1 + log₂(time/mean)/2, at most 3 (what a server box holds).
func requestLength(time uint32, mean float64) float32 {
	if mean <= 0 || float64(time) < LongRequest*mean {
		return 1
	}
	return float32(min(1+math.Log2(float64(time)/mean)/2, 3))
}
