package render

import (
	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/lbsim/lbsim/render/scene"
)

// keymap turns ebiten's keys into the scene's; letters and digits are
// added by init. Everything a key does is decided in package scene, where
// it is tested without a GPU; the help overlay lists it.
var keymap = map[ebiten.Key]scene.Key{
	ebiten.KeySpace:          scene.KeySpace,
	ebiten.KeyArrowRight:     scene.KeyRight,
	ebiten.KeyArrowLeft:      scene.KeyLeft,
	ebiten.KeyArrowUp:        scene.KeyUp,
	ebiten.KeyArrowDown:      scene.KeyDown,
	ebiten.KeyEqual:          scene.KeyPlus, // + without shift on most layouts
	ebiten.KeyNumpadAdd:      scene.KeyPlus,
	ebiten.KeyMinus:          scene.KeyMinus,
	ebiten.KeyNumpadSubtract: scene.KeyMinus,
	ebiten.KeyTab:            scene.KeyTab,
	ebiten.KeyEnter:          scene.KeyEnter,
	ebiten.KeyNumpadEnter:    scene.KeyEnter,
	ebiten.KeyEscape:         scene.KeyEscape,
	ebiten.KeyBackspace:      scene.KeyBackspace,
	ebiten.KeyDelete:         scene.KeyDelete,
	ebiten.KeyPageUp:         scene.KeyPageUp,
	ebiten.KeyPageDown:       scene.KeyPageDown,
	ebiten.KeyHome:           scene.KeyHome,
	ebiten.KeyEnd:            scene.KeyEnd,
}

func init() {
	for k := ebiten.KeyA; k <= ebiten.KeyZ; k++ {
		keymap[k] = scene.RuneKey('a' + rune(k-ebiten.KeyA))
	}
	for k := ebiten.KeyDigit0; k <= ebiten.KeyDigit9; k++ {
		keymap[k] = scene.RuneKey('0' + rune(k-ebiten.KeyDigit0))
	}
	for k := ebiten.KeyNumpad0; k <= ebiten.KeyNumpad9; k++ {
		keymap[k] = scene.RuneKey('0' + rune(k-ebiten.KeyNumpad0))
	}
}

// readInput samples the pointer, the primary button and the keys pressed
// since the last tick. scale turns window coordinates into screen pixels.
func readInput(in *scene.Input, keys []ebiten.Key, scale float64) []ebiten.Key {
	x, y := ebiten.CursorPosition()
	in.X, in.Y = float32(float64(x)*scale), float32(float64(y)*scale)
	in.Down = ebiten.IsMouseButtonPressed(ebiten.MouseButtonLeft)
	in.Pressed = inpututil.IsMouseButtonJustPressed(ebiten.MouseButtonLeft)
	in.Released = inpututil.IsMouseButtonJustReleased(ebiten.MouseButtonLeft)
	if ids := inpututil.AppendJustPressedTouchIDs(nil); len(ids) > 0 {
		tx, ty := ebiten.TouchPosition(ids[0])
		in.X, in.Y = float32(float64(tx)*scale), float32(float64(ty)*scale)
		in.Pressed, in.Down = true, true
	}
	in.Shift = ebiten.IsKeyPressed(ebiten.KeyShift)
	in.Keys = in.Keys[:0]
	keys = inpututil.AppendJustPressedKeys(keys[:0])
	for _, k := range keys {
		if sk, ok := keymap[k]; ok {
			in.Keys = append(in.Keys, sk)
		} else {
			in.Keys = append(in.Keys, scene.KeyNone)
		}
	}
	return keys
}
