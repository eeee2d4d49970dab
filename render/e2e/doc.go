// Package e2e holds the end-to-end tests of the lbsim view: the web page in
// real headless Chromium, driven with chromedp, and the desktop window under
// Xvfb. The package itself imports no ebiten; the tests build the wasm and
// the desktop command with `go build` and drive the results, so they run
// with plain `go test` (they skip under -short, and when Chromium or a
// display is missing, saying so).
package e2e
