package render

import (
	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/lbsim/lbsim/render/scene"
)

// command is what one key asks for: a scene intent, or a window action
// the scene does not know about.
type command struct {
	intent     scene.Intent
	fullscreen bool
}

// keymap is the whole keyboard interface; the help overlay lists it.
var keymap = map[ebiten.Key]command{
	ebiten.KeySpace:          {intent: scene.TogglePause},
	ebiten.KeyArrowRight:     {intent: scene.StepOne},
	ebiten.KeyEqual:          {intent: scene.Faster}, // + without shift on most layouts
	ebiten.KeyNumpadAdd:      {intent: scene.Faster},
	ebiten.KeyArrowUp:        {intent: scene.Faster},
	ebiten.KeyMinus:          {intent: scene.Slower},
	ebiten.KeyNumpadSubtract: {intent: scene.Slower},
	ebiten.KeyArrowDown:      {intent: scene.Slower},
	ebiten.KeyR:              {intent: scene.Restart},
	ebiten.KeyH:              {intent: scene.ToggleHelp},
	ebiten.KeyF:              {fullscreen: true},
}

// readCommands appends the commands of the keys pressed since the last
// tick; a key with no command still dismisses the message banner.
func readCommands(dst []command, keys []ebiten.Key) ([]command, []ebiten.Key) {
	keys = inpututil.AppendJustPressedKeys(keys[:0])
	for _, k := range keys {
		c, ok := keymap[k]
		if !ok {
			c = command{intent: scene.DismissMessage}
		}
		dst = append(dst, c)
	}
	return dst, keys
}
