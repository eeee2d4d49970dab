// Package render is the thin ebiten edge of the lbsim view: Game adapts a
// scene.Session to ebiten.Game. Update samples the keys and the pointer into
// a scene.Input, lets the session handle it, carries out the requests that
// need the platform (save, load, share through a Platform; fullscreen) and
// advances the session by one tick; Draw paints the session's scene.Frame —
// coloured quads in one batched DrawTriangles call per layer, and text with
// text/v2 in the Go fonts embedded by package assets. Layout, pacing and
// animation live in package scene, which needs no GPU and is tested on its
// own; this package holds no model logic.
//
// Importing this package needs a display at run time (X11 natively, a
// browser with WebGL under js/wasm): its tests are behind the `display`
// build tag and run under xvfb-run (see the Makefile's test target).
package render
