package scene

import "slices"

// Exported for the external tests (package scene_test), which open
// lessons through render/preset (it imports this package).

// Overlaps lists the overlapping and off-screen text runs of f.
func Overlaps(f *Frame) []string { return overlaps(f) }

// TextBox is the rectangle text run t covers on screen.
func TextBox(t Text) Rect { return textBox(t) }

// SliderLabels returns each slider's id with its label and short label.
func (s *Session) SliderLabels() map[string][2]string {
	out := map[string][2]string{}
	for _, w := range s.controls() {
		if w.kind == kSlider {
			out[w.id] = [2]string{w.label, w.short}
		}
	}
	return out
}

// ServerShare is serverShare.
func (s *Session) ServerShare(lane, b, id int) string { return s.serverShare(lane, b, id) }

// IsStateWord reports whether s is a server's state word in one of its
// forms (StateWord, stateForms).
func IsStateWord(s string) bool {
	for _, forms := range stateForms {
		if slices.Contains(forms, s) {
			return true
		}
	}
	return false
}

// WaitQuantile is the q-th quantile of lane's waits counted for the
// waits' distribution chart (its bucket's top).
func (s *Session) WaitQuantile(lane int, q float64) int64 { return s.dists[lane].quantile(q) }
