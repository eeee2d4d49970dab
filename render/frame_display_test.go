//go:build display

package render

import (
	"os"
	"testing"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/lbsim/lbsim/render/preset"
	"github.com/lbsim/lbsim/sim"
)

// These tests need a display (run them with `xvfb-run -a go test -tags
// display ./render`): ebiten must run its loop on the main thread, so
// TestMain runs the game and the tests run in a goroutine, handing work to
// the loop through jobs.

type job struct {
	fn   func(screen *ebiten.Image)
	done chan struct{}
}

type harness struct {
	jobs chan job
	quit chan struct{}
}

func (h *harness) Update() error {
	select {
	case <-h.quit:
		return ebiten.Termination
	default:
		return nil
	}
}

func (h *harness) Draw(screen *ebiten.Image) {
	for {
		select {
		case j := <-h.jobs:
			j.fn(screen)
			close(j.done)
		default:
			return
		}
	}
}

func (h *harness) Layout(int, int) (int, int) { return 1280, 720 }

var loop = &harness{jobs: make(chan job), quit: make(chan struct{})}

// onScreen runs fn inside a Draw of the real game loop.
func onScreen(fn func(screen *ebiten.Image)) {
	j := job{fn: fn, done: make(chan struct{})}
	loop.jobs <- j
	<-j.done
}

func TestMain(m *testing.M) {
	code := 0
	go func() {
		code = m.Run()
		close(loop.quit)
	}()
	ebiten.SetWindowSize(1280, 720)
	if err := ebiten.RunGame(loop); err != nil {
		panic(err)
	}
	os.Exit(code)
}

// bigGame is 500 servers and a queue of 100,000 requests.
func bigGame(tb testing.TB) *Game {
	cfg := sim.DefaultConfig()
	cfg.Seed = 1
	cfg.Servers, cfg.MaxServers = 500, 500
	cfg.InitialPerServer = 200
	cfg.Blocked = nil
	cfg.TaskMin, cfg.TaskMax = 100, 400
	g, err := NewGame(preset.Preset{Config: cfg, Speed: 30, PauseAt: -1})
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

func TestDrawsTheScene(t *testing.T) {
	g := bigGame(t)
	onScreen(func(screen *ebiten.Image) {
		g.Update()
		g.Draw(screen)
		px := make([]byte, 4*1280*720)
		screen.ReadPixels(px)
		bg := [4]byte{px[0], px[1], px[2], px[3]}
		diff := 0
		for i := 0; i < len(px); i += 4 {
			if [4]byte{px[i], px[i+1], px[i+2], px[i+3]} != bg {
				diff++
			}
		}
		if diff < len(px)/4/10 {
			t.Errorf("only %d of %d pixels differ from the background", diff, len(px)/4)
		}
	})
	if st := g.State(); st.Frames != 1 || st.Summary.FinalQueue < 99_000 {
		t.Errorf("state %+v", st)
	}
}

// BenchmarkFrame500Servers100kQueue times Update+Draw with 500 servers and
// 100,000 queued requests, one pair per real frame of the game loop (so
// ebiten's command queue is flushed between them as in the running view).
// ns/op is the CPU time of Update+Draw; wall-ms/frame is the time from
// frame to frame, which adds ebiten's flush and the software GPU.
func BenchmarkFrame500Servers100kQueue(b *testing.B) {
	g := bigGame(b)
	onScreen(func(*ebiten.Image) {}) // a first frame for the atlas
	var busy time.Duration
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		onScreen(func(screen *ebiten.Image) {
			t0 := time.Now()
			g.Update()
			g.Draw(screen)
			busy += time.Since(t0)
		})
	}
	wall := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(busy.Nanoseconds())/float64(b.N), "ns/op")
	b.ReportMetric(float64(wall.Milliseconds())/float64(b.N), "wall-ms/frame")
}
