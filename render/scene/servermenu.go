package scene

import (
	"fmt"
	"strconv"

	"github.com/lbsim/lbsim/sim"
)

// The server menu: a click on a server box (or G, then ←/→ to pick the
// server) opens it, and each entry schedules one fault on that server at
// the next cycle through Set, exactly like `lbsim run --set T:NAME=VALUE`:
// recorded, replayed and carried by share links like any change.

// WServerPrefix starts the ids of the server menu's entries:
// "server:ACTION" (server:down, server:slow, …); WServerPick is its
// choice of the server.
const (
	WServerPrefix = "server:"
	WServerPick   = "server-pick"
)

// MenuSlow is the slow factor the menu's "slow" entry gives a server.
const MenuSlow = "4"

// serverMenu is the server the menu acts on: its lane, its balancer in
// that lane's model, and its id.
type serverMenu struct {
	lane, bal, id int
}

// serverAction is one entry of the menu: the change it schedules (a
// `--set` name, and its value from the server's reference), its label,
// and whether it is offered for a server in view v.
type serverAction struct {
	name   string
	label  string
	value  func(ref sim.ServerRef) string
	offers func(v sim.ServerView) bool
}

func refValue(ref sim.ServerRef) string { return ref.String() }

// serverActions are the menu's entries in order; each is offered only
// when it changes the server ("down" and "up" share a place).
var serverActions = []serverAction{
	{"down", "take down (a crash: its request is re-queued)", refValue, func(v sim.ServerView) bool { return v.State != sim.Failed }},
	{"up", "bring up again", refValue, func(v sim.ServerView) bool { return v.State == sim.Failed }},
	{"slow", "slow ×" + MenuSlow + ": each request takes " + MenuSlow + " times as long",
		func(ref sim.ServerRef) string { return ref.String() + "x" + MenuSlow },
		func(v sim.ServerView) bool { return v.Gray != sim.Slow || v.Slow.String() != MenuSlow }},
	{"fail", "fail: every request ends in error, fast", refValue, func(v sim.ServerView) bool { return v.Gray != sim.Failing }},
	{"hang", "hang: requests never finish (until it goes down)", refValue, func(v sim.ServerView) bool { return v.Gray != sim.Hanging }},
	{"heal", "heal: healthy again", refValue, func(v sim.ServerView) bool { return v.Gray != sim.Healthy }},
}

// serverMenuWidgets are the menu's entries for the server it acts on: the
// server's choice, the actions its state allows, then cancel.
func (s *Session) serverMenuWidgets() []widget {
	ws := []widget{{id: WServerPick, kind: kChoice, label: "server", row: rowList,
		get:    func(s *Session) int64 { return int64(s.menu.id) },
		set:    func(s *Session, v int64) { s.menu.id = int(v) },
		format: s.menuServerName,
		next:   func(s *Session, cur int64, step int) int64 { return int64(s.nextMenuServer(int(cur), step)) }}}
	v, _ := s.menuServer()
	for _, a := range serverActions {
		if !a.offers(v) {
			continue
		}
		ws = append(ws, widget{id: WServerPrefix + a.name, kind: kButton, label: a.label, row: rowList,
			act: func(s *Session) { s.serverAct(a) }})
	}
	return append(ws, widget{id: WServerPrefix + "cancel", kind: kButton, label: "cancel (Esc)", row: rowList, width: 160, intent: CloseDialog})
}

// menuServerName names server id of the menu's balancer, with its state
// word in full when it has one ("server 3 · failing"): a small box shows
// only a short form of it (StateForms).
func (s *Session) menuServerName(id int64) string {
	name := "server " + strconv.FormatInt(id, 10)
	if v, ok := s.menuServer(); ok && int64(v.ID) == id {
		if w, _ := StateWord(v); w != "" {
			name += " · " + w
		}
	}
	return name
}

// menuBalancer returns the balancer the menu's server is in.
func (s *Session) menuBalancer() (shownBalancer, bool) {
	for _, sb := range s.shown() {
		if sb.lane == s.menu.lane && sb.bal == s.menu.bal {
			return sb, true
		}
	}
	return shownBalancer{}, false
}

// menuServer returns the view of the menu's server, and whether it is in
// the pool.
func (s *Session) menuServer() (sim.ServerView, bool) {
	sb, ok := s.menuBalancer()
	if !ok {
		return sim.ServerView{}, false
	}
	for v := range sb.b.Servers() {
		if v.ID == s.menu.id {
			return v, true
		}
	}
	return sim.ServerView{}, false
}

// nextMenuServer returns the id of the server step places after id (−1:
// before) in the menu's balancer, wrapping.
func (s *Session) nextMenuServer(id, step int) int {
	sb, ok := s.menuBalancer()
	if !ok {
		return id
	}
	var ids []int
	at := 0
	for v := range sb.b.Servers() {
		if v.ID == id {
			at = len(ids)
		}
		ids = append(ids, v.ID)
	}
	if len(ids) == 0 {
		return id
	}
	return ids[(at+step+len(ids))%len(ids)]
}

// openServerMenu opens the menu on server id of balancer bal in lane,
// which becomes the focused lane.
func (s *Session) openServerMenu(lane, bal, id int) {
	s.lane = lane
	s.menu = serverMenu{lane: lane, bal: bal, id: id}
	s.dialog, s.dragging, s.focus = dialogServer, -1, 1 // the first action
}

// openServerMenuKey opens the menu from the keyboard: on the focused
// lane's first server, the choice focused so that ← and → pick another.
func (s *Session) openServerMenuKey() {
	for _, sb := range s.shown() {
		if sb.lane != min(s.lane, len(s.set.Lanes)-1) {
			continue
		}
		for v := range sb.b.Servers() {
			s.openServerMenu(sb.lane, sb.bal, v.ID)
			s.focus = 0
			return
		}
	}
	s.say("no server to change: the pool is empty", true)
}

// serverAct schedules a's change on the menu's server at the next cycle
// and closes the menu.
func (s *Session) serverAct(a serverAction) {
	s.dialog, s.focus = dialogNone, -1
	if _, ok := s.menuServer(); !ok {
		s.say(fmt.Sprintf("server %d has left the pool: nothing to %s", s.menu.id, a.name), true)
		return
	}
	s.lane = s.menu.lane
	ref := sim.MakeServerRef(s.menu.bal, s.menu.id)
	if err := s.Set(a.name, a.value(ref)); err != nil {
		s.say(err.Error(), true)
	}
}

// menuTarget returns the box of the server the menu acts on in layout l,
// or an empty rectangle when it is not on screen.
func (s *Session) menuTarget(l Layout) Rect {
	for k, sb := range s.shown() {
		if sb.lane != s.menu.lane || sb.bal != s.menu.bal {
			continue
		}
		_, g := s.laneGeom(l, k, sb)
		i := 0
		for v := range sb.b.Servers() {
			if v.ID == s.menu.id {
				return g.BoxAt(i)
			}
			i++
		}
	}
	return Rect{}
}

func (s *Session) drawServerMenu(f *Frame, l Layout) {
	if s.dialog != dialogServer {
		return
	}
	u := l.T
	d := listDialog(l, len(s.controls()))
	f.rect(DialogLayer, d, Background)
	f.stroke(DialogLayer, d, 2*u, BusyColor)
	title := "server " + strconv.Itoa(s.menu.id)
	if v, ok := s.menuServer(); ok {
		if w, _ := StateWord(v); w != "" {
			title += " (" + w + ")"
		}
	}
	short := title
	if s.Comparing() {
		title += " of lane " + s.set.Lanes[s.menu.lane].Label
	}
	f.box("dialog", d)
	f.box("target", l.Target)
	f.text(DialogLayer, f.fitFirst(17*u, true, d.W-32*u, title+": the change applies at the next cycle and is recorded", title, short),
		d.X+16*u, d.Y+14*u, 17*u, true, AlignStart, TextColor)
}
