package snapshot

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/lbsim/lbsim/sim"
)

// appendTrace writes each row as uvarint((cycle − previous cycle)·2 +
// type), source and destination as big-endian uint32s, uvarint(time).
func appendTrace(b []byte, rows []sim.TraceRow) []byte {
	prev := int64(0)
	for _, r := range rows {
		b = binary.AppendUvarint(b, uint64(r.Cycle-prev)<<1|uint64(r.Type&1))
		b = binary.BigEndian.AppendUint32(b, r.Src)
		b = binary.BigEndian.AppendUint32(b, r.Dst)
		b = binary.AppendUvarint(b, uint64(r.Time))
		prev = r.Cycle
	}
	return b
}

// maxTraceCycle bounds a trace row's cycle so sums cannot overflow; rows
// beyond the run's last cycle are ignored by the model anyway.
const maxTraceCycle = 1 << 40

func readTrace(b []byte) ([]sim.TraceRow, error) {
	rows := []sim.TraceRow{}
	prev := int64(0)
	for len(b) > 0 {
		if len(rows) >= MaxTraceRows {
			return nil, fmt.Errorf("trace: more than %d rows", MaxTraceRows)
		}
		i := len(rows) + 1
		d, k := binary.Uvarint(b)
		if k <= 0 || d>>1 > maxTraceCycle {
			return nil, fmt.Errorf("trace row %d: bad cycle", i)
		}
		b = b[k:]
		if len(b) < 8 {
			return nil, fmt.Errorf("trace row %d: truncated", i)
		}
		r := sim.TraceRow{Cycle: prev + int64(d>>1), Type: sim.Type(d & 1), Src: binary.BigEndian.Uint32(b), Dst: binary.BigEndian.Uint32(b[4:])}
		b = b[8:]
		t, k := binary.Uvarint(b)
		if k <= 0 || t < 1 || t > sim.MaxTaskTime {
			return nil, fmt.Errorf("trace row %d: bad time: want 1 to %d cycles", i, sim.MaxTaskTime)
		}
		b = b[k:]
		r.Time = uint32(t)
		if r.Cycle > maxTraceCycle {
			return nil, fmt.Errorf("trace row %d: cycle %d beyond %d", i, r.Cycle, int64(maxTraceCycle))
		}
		prev = r.Cycle
		rows = append(rows, r)
	}
	return rows, nil
}

// appendChanges writes each change as uvarint(cycle − previous cycle),
// uvarint(setting number), zigzag varint(value). A new sim.Setting needs no
// format change; a reader that does not know its number refuses the file.
func appendChanges(b []byte, cs []sim.Change) []byte {
	prev := int64(0)
	for _, c := range cs {
		b = binary.AppendUvarint(b, uint64(c.Cycle-prev))
		b = binary.AppendUvarint(b, uint64(c.Setting))
		b = binary.AppendVarint(b, c.Value)
		prev = c.Cycle
	}
	return b
}

// readChanges reads the change log of a run of n cycles: every cycle from 1
// to n, in non-decreasing order, every setting one this lbsim knows.
func readChanges(b []byte, n int64) ([]sim.Change, error) {
	var cs []sim.Change
	prev := int64(0)
	known := len(sim.SettingNames())
	for len(b) > 0 {
		if len(cs) >= MaxChanges {
			return nil, fmt.Errorf("changes: more than %d", MaxChanges)
		}
		i := len(cs) + 1
		d, k := binary.Uvarint(b)
		if k <= 0 || d > uint64(n) || prev+int64(d) > n || prev+int64(d) < 1 {
			return nil, fmt.Errorf("change %d: its cycle must be from %d to the last cycle %d", i, max(prev, 1), n)
		}
		b = b[k:]
		s, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, fmt.Errorf("change %d: truncated setting", i)
		}
		if s >= uint64(known) {
			return nil, fmt.Errorf("change %d: unknown setting number %d: this lbsim knows 0..%d (%v); a newer lbsim wrote this snapshot", i, s, known-1, sim.SettingNames())
		}
		b = b[k:]
		v, k := binary.Varint(b)
		if k <= 0 {
			return nil, fmt.Errorf("change %d: truncated value", i)
		}
		b = b[k:]
		prev += int64(d)
		cs = append(cs, sim.Change{Cycle: prev, Setting: sim.Setting(s), Value: v})
	}
	return cs, nil
}

func fromSummary(s *sim.Summary) wireSummary {
	w := wireSummary{Total: fromCounts(s)}
	if s.P != nil {
		p := fromCounts(s.P)
		w.P = &p
	}
	if s.S != nil {
		q := fromCounts(s.S)
		w.S = &q
	}
	return w
}

// sim rebuilds the sim.Summary of a run of cfg over cycles.
func (w *wireSummary) sim(cfg *sim.Config, cycles int64) sim.Summary {
	s := w.Total.sim(cfg, cycles)
	if w.P != nil {
		p := w.P.sim(cfg, cycles)
		s.P = &p
	}
	if w.S != nil {
		q := w.S.sim(cfg, cycles)
		s.S = &q
	}
	s.SetCost(cfg.ServerCost)
	return s
}

// fromCounts and (*wireCounts).sim map the numbers of a summary; a new
// sim.Summary number is one line in each and a field in wireCounts.
func fromCounts(s *sim.Summary) wireCounts {
	w := wireCounts{
		InitialQueue:    s.InitialQueue,
		FinalQueue:      s.FinalQueue,
		Generated:       s.Generated,
		Rejected:        s.Rejected,
		Discarded:       s.Discarded,
		Admitted:        s.Admitted,
		Completed:       s.Completed,
		InService:       s.InService,
		Dispatched:      s.Dispatched,
		TotalWait:       s.TotalWait,
		ServiceCycles:   s.ServiceCycles,
		Uncounted:       s.Dispatched - s.ServiceCount,
		Errors:          s.Errors,
		PeakQueue:       s.PeakQueue,
		ScaleUps:        s.ScaleUps,
		ScaleDowns:      s.ScaleDowns,
		ServersFinal:    s.ServersFinal,
		ServersBusy:     s.ServersBusy,
		ServersIdle:     s.ServersIdle,
		ServersRetiring: s.ServersRetiring,
		ServersMin:      s.ServersMin,
		ServersPeak:     s.ServersPeak,
		Requeued:        s.Requeued,
		Down:            s.Down,
		Up:              s.Up,
		FaultsSkipped:   s.FaultsSkipped,
		ServersDown:     s.ServersDown,
		ServerQueueMax:  s.ServerQueueMax,
		Lobby:           s.Lobby,
		TotalResponse:   s.TotalResponse,
		WaitP50:         s.WaitP50,
		WaitP90:         s.WaitP90,
		WaitP95:         s.WaitP95,
		WaitP99:         s.WaitP99,
		WaitMax:         s.WaitMax,
		ResponseP50:     s.ResponseP50,
		ResponseP90:     s.ResponseP90,
		ResponseP95:     s.ResponseP95,
		ResponseP99:     s.ResponseP99,
		ResponseMax:     s.ResponseMax,
		ServerCycles:    s.ServerCycles,
		BusyCycles:      s.BusyServerCycles,

		NotFailed:         s.Errors - s.Failed,
		Retries:           s.Retries,
		RetriesDiscarded:  s.RetriesDiscarded,
		TimedOut:          s.TimedOut,
		GaveUpBudget:      s.GaveUpBudget,
		TimedOutQueued:    s.TimedOutQueued,
		TimedOutInService: s.TimedOutInService,
		Abandoned:         s.AbandonedInService,
		Waiting:           s.InFlight - s.FinalQueue - s.InService,
		WastedCycles:      s.WastedCycles,
		Replaced:          s.Replaced,
		Ejections:         s.Ejections,
		Shed:              s.Shed,
		Limited:           s.Limited,
		Throttled:         s.Throttled,
		LimitSum:          s.LimitSum,
		LimitCount:        s.LimitCount,
		LimitMin:          s.LimitFinalMin,
		LimitMax:          s.LimitFinalMax,
		ServersEjected:    s.ServersEjected,
		ServersWarming:    s.ServersWarming,
		PartsDone:         s.AttemptsCompleted - s.Completed,
		Hedges:            s.Hedges,
		HedgesWon:         s.HedgesWon,
		HedgesDenied:      s.HedgesDenied,
		Cancelled:         s.Cancelled,
	}
	if s.Fanout > 1 {
		w.Waiting, w.InFlight = 0, s.InFlight
	}
	for _, f := range s.Fleet {
		w.FleetRouted = append(w.FleetRouted, f.Routed)
		w.FleetMost = append(w.FleetMost, int64(math.Round(f.MaxShare*float64(f.Routed))))
	}
	return w
}

func (w *wireCounts) sim(cfg *sim.Config, cycles int64) sim.Summary {
	s := sim.Summary{
		Seed:             cfg.Seed,
		Balancers:        max(cfg.Balancers, 1),
		LoadInfo:         cfg.LoadInfo.String(),
		Fleet:            make([]sim.FleetShare, len(w.FleetRouted)),
		Cycles:           cycles,
		InitialQueue:     w.InitialQueue,
		FinalQueue:       w.FinalQueue,
		Generated:        w.Generated,
		Rejected:         w.Rejected,
		Discarded:        w.Discarded,
		Admitted:         w.Admitted,
		Completed:        w.Completed,
		InService:        w.InService,
		Dispatched:       w.Dispatched,
		TotalWait:        w.TotalWait,
		ServiceCycles:    w.ServiceCycles,
		ServiceCount:     w.Dispatched - w.Uncounted,
		Errors:           w.Errors,
		PeakQueue:        w.PeakQueue,
		ScaleUps:         w.ScaleUps,
		ScaleDowns:       w.ScaleDowns,
		ServersFinal:     w.ServersFinal,
		ServersBusy:      w.ServersBusy,
		ServersIdle:      w.ServersIdle,
		ServersRetiring:  w.ServersRetiring,
		ServersMin:       w.ServersMin,
		ServersPeak:      w.ServersPeak,
		Requeued:         w.Requeued,
		Down:             w.Down,
		Up:               w.Up,
		FaultsSkipped:    w.FaultsSkipped,
		ServersDown:      w.ServersDown,
		ServerQueueMax:   w.ServerQueueMax,
		Lobby:            w.Lobby,
		TotalResponse:    w.TotalResponse,
		WaitP50:          w.WaitP50,
		WaitP90:          w.WaitP90,
		WaitP95:          w.WaitP95,
		WaitP99:          w.WaitP99,
		WaitMax:          w.WaitMax,
		ResponseP50:      w.ResponseP50,
		ResponseP90:      w.ResponseP90,
		ResponseP95:      w.ResponseP95,
		ResponseP99:      w.ResponseP99,
		ResponseMax:      w.ResponseMax,
		ServerCycles:     w.ServerCycles,
		BusyServerCycles: w.BusyCycles,

		Failed:             w.Errors - w.NotFailed,
		Retries:            w.Retries,
		RetriesDiscarded:   w.RetriesDiscarded,
		TimedOut:           w.TimedOut,
		GaveUpBudget:       w.GaveUpBudget,
		TimedOutQueued:     w.TimedOutQueued,
		TimedOutInService:  w.TimedOutInService,
		AbandonedInService: w.Abandoned,
		InFlight:           w.FinalQueue + w.InService + w.Waiting,
		WastedCycles:       w.WastedCycles,
		Replaced:           w.Replaced,
		Ejections:          w.Ejections,
		Shed:               w.Shed,
		Limited:            w.Limited,
		Throttled:          w.Throttled,
		LimitSum:           w.LimitSum,
		LimitCount:         w.LimitCount,
		LimitFinalMin:      w.LimitMin,
		LimitFinalMax:      w.LimitMax,
		ServersEjected:     w.ServersEjected,
		ServersWarming:     w.ServersWarming,
		Fanout:             int64(max(cfg.Fanout, 1)),
		Parts:              w.Admitted * int64(max(cfg.Fanout, 1)),
		Hedges:             w.Hedges,
		HedgesWon:          w.HedgesWon,
		HedgesDenied:       w.HedgesDenied,
		Cancelled:          w.Cancelled,
		AttemptsCompleted:  w.Completed + w.PartsDone,
	}
	if cfg.Fanout > 1 {
		s.InFlight = w.InFlight
	}
	s.Derive()
	for k := range s.Fleet {
		f := &s.Fleet[k]
		f.Routed = w.FleetRouted[k]
		if k < len(w.FleetMost) && f.Routed > 0 {
			f.MaxShare = float64(w.FleetMost[k]) / float64(f.Routed)
		}
		s.MaxShare = max(s.MaxShare, f.MaxShare)
	}
	return s
}
