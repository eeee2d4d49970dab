// Package scene is everything the lbsim view does that needs no GPU: it
// paces the model (speed ladder, pause, single steps, pause-at), animates
// requests between cycles, keeps the history of the whole run the charts
// show, lays out the firewall gate, the FIFO queue, the server grid, the
// HUD and the charts for any screen size, and turns all of it into a Frame
// — a list of coloured quads and text runs that package render paints with
// ebiten.
//
// A Session is the model on screen. Update advances it by one tick
// (ebiten's fixed 1/TPS step); Draw never steps the model or changes a
// setting: it builds the frame and remembers the screen size for
// hit-testing. The model is stepped by whole cycles: a speed is an integer
// number of cycles per second, turned into cycles per tick by an integer
// accumulator (Pacer), so the model never sees a time delta and a run on
// screen is the same run as `lbsim run` with the same settings. Only
// fast-forward (MaxSpeed) looks at the wall clock, and only to decide how
// many whole cycles fit in a frame.
//
// Motion is cosmetic: flights of requests are interpolated from tick counts
// and jittered by the Session's own random generator, never the model's.
//
// The controls are here too, each one entry of a table that carries its
// value, its action and its formatter (controls.go). HandleInput takes one
// tick of pointer and keyboard input (Input, Key; every key is given its
// meaning here, package render only names the platform's keys) and drives
// the sliders, the selectors, the seed field, the buttons and the dialogs
// (share, lessons, the firewall's block list), clicks on servers and the
// shortcuts. A change of a setting is scheduled for the next cycle, exactly
// like `lbsim run --set`, and a snapshot.Recorder watches every cycle, so
// Snapshot saves the run and Load/LoadLink replay one (with a scrub bar,
// SeekCycle, and a fork when the viewer takes control). Save, Load, Share
// and Fullscreen need the platform and are handed out by TakeRequests.
//
// Every run on screen is a sim/lanes.Set: one lane for a single run, two
// to four in the compare view (compare.go), where the lanes share one
// request stream and one firewall, an arrival or firewall setting changes
// every lane and any other the focused lane, and Save, Load and Share
// hold every lane in one comparison snapshot.
//
// The Session's jobs have their own files: pacing.go, controls.go (and
// controls_draw.go), replay.go, share.go, lessons.go, firewall.go,
// charts.go, theory.go, compare.go and fleet.go (a fleet's gates and
// what each balancer believes).
//
// The package imports no ebiten, so it is tested with plain `go test`,
// natively and under GOOS=js GOARCH=wasm.
package scene
