package snapshot

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/lbsim/lbsim/sim"
)

// fromConfig maps a sim.Config onto the wire. A new sim.Config field is
// one line here, one in (*wireConfig).sim and an optional field with a new
// key in wireConfig (format.go); its zero value must mean what older
// snapshots, which lack the key, meant.
func fromConfig(c *sim.Config) wireConfig {
	w := wireConfig{
		Servers:          int64(c.Servers),
		Cycles:           c.Cycles,
		TaskMin:          int64(c.TaskMin),
		TaskMax:          int64(c.TaskMax),
		Seed:             c.Seed,
		InitialPerServer: int64(c.InitialPerServer),
		Rate:             int64(c.Rate),
		Wave:             c.Wave,
		WaveAmplitude:    int64(c.WaveAmplitude),
		WavePeriod:       c.WavePeriod,
		StreamShare:      int64(c.StreamShare),
		Blocked:          appendRanges(nil, c.Blocked),
		ScaleUp:          int64(c.ScaleUp),
		ScaleDown:        int64(c.ScaleDown),
		Cooldown:         c.Cooldown,
		MinServers:       int64(c.MinServers),
		MaxServers:       int64(c.MaxServers),
		QueueCap:         int64(c.QueueCap),
		Policy:           int64(c.Policy),
		Switch:           c.Switch,
		TraceMode:        c.Trace != nil,
		Trace:            appendTrace(nil, c.Trace),
		Weights:          appendWeights(nil, c.Weights),
		MTBF:             c.MTBF,
		MTTR:             c.MTTR,
		Service:          int64(c.Service),
		MeanService:      int64(c.MeanService),
		Queues:           int64(c.Queues),
		Choices:          int64(c.Choices),
		EwmaDecay:        c.EwmaDecay,
		FailTime:         c.FailTime,
		Balancers:        int64(c.Balancers),
		LoadInfo:         int64(c.LoadInfo),
		Speeds:           appendSpeeds(nil, c.Speeds),
		ServiceCV:        int64(c.ServiceCV),
		ServiceShape:     int64(c.ServiceShape),
		LongShare:        int64(c.LongShare),
		ServiceMax:       int64(c.ServiceMax),
		ServiceValues:    appendValues(nil, c.ServiceValues),
		Timeout:          c.Timeout,
		Retries:          int64(c.Retries),
		Backoff:          c.Backoff,
		Jitter:           c.Jitter,
		RetryBudget:      int64(c.RetryBudget),
		HealthInterval:   c.HealthInterval,
		HealthFall:       orDefault(int64(c.HealthFall), sim.DefaultHealthFall),
		HealthRise:       orDefault(int64(c.HealthRise), sim.DefaultHealthRise),
		EjectAfter:       int64(c.EjectAfter),
		EjectFor:         orDefault(c.EjectFor, sim.DefaultEjectFor),
		ProvisionDelay:   c.ProvisionDelay,
		ReplaceAfter:     c.ReplaceAfter,
	}
	return w
}

// sim maps the wire form back and validates the result like any
// configuration (sim.Config.Validate). Numbers too large for their Go
// type are refused rather than truncated.
func (w *wireConfig) sim() (sim.Config, error) {
	var err error
	n := func(field string, v int64) int {
		if v < math.MinInt32 || v > math.MaxInt32 {
			err = cmpErr(err, fmt.Errorf("config %s = %d: out of range", field, v))
			return 0
		}
		return int(v)
	}
	c := sim.Config{
		Servers:          n("servers", w.Servers),
		Cycles:           w.Cycles,
		TaskMin:          n("task-min", w.TaskMin),
		TaskMax:          n("task-max", w.TaskMax),
		Seed:             w.Seed,
		InitialPerServer: n("initial-per-server", w.InitialPerServer),
		Rate:             sim.Rate(w.Rate),
		Wave:             w.Wave,
		WaveAmplitude:    n("wave-amplitude", w.WaveAmplitude),
		WavePeriod:       w.WavePeriod,
		StreamShare:      n("stream-share", w.StreamShare),
		ScaleUp:          sim.Factor(w.ScaleUp),
		ScaleDown:        sim.Factor(w.ScaleDown),
		Cooldown:         w.Cooldown,
		MinServers:       n("min-servers", w.MinServers),
		MaxServers:       n("max-servers", w.MaxServers),
		QueueCap:         n("queue-cap", w.QueueCap),
		Policy:           sim.Policy(n("policy", w.Policy)),
		Switch:           w.Switch,
		MTBF:             w.MTBF,
		MTTR:             w.MTTR,
		Service:          sim.Service(n("service", w.Service)),
		MeanService:      n("mean-service", w.MeanService),
		Queues:           sim.QueueMode(n("queues", w.Queues)),
		Choices:          n("choices", w.Choices),
		EwmaDecay:        w.EwmaDecay,
		FailTime:         w.FailTime,
		Balancers:        n("balancers", w.Balancers),
		LoadInfo:         sim.LoadInfo(w.LoadInfo),
		ServiceCV:        sim.Decimal(w.ServiceCV),
		ServiceShape:     sim.Decimal(w.ServiceShape),
		LongShare:        sim.Decimal(w.LongShare),
		ServiceMax:       n("service-max", w.ServiceMax),
		Timeout:          w.Timeout,
		Retries:          n("retries", w.Retries),
		Backoff:          w.Backoff,
		Jitter:           w.Jitter,
		RetryBudget:      sim.Decimal(w.RetryBudget),
		HealthInterval:   w.HealthInterval,
		HealthFall:       n("health-fall", fromDefault(w.HealthFall, sim.DefaultHealthFall)),
		HealthRise:       n("health-rise", fromDefault(w.HealthRise, sim.DefaultHealthRise)),
		EjectAfter:       n("eject-after", w.EjectAfter),
		EjectFor:         fromDefault(w.EjectFor, sim.DefaultEjectFor),
		ProvisionDelay:   w.ProvisionDelay,
		ReplaceAfter:     w.ReplaceAfter,
	}
	if w.Queues < 0 || w.Queues >= int64(len(sim.QueueModeNames())) {
		err = cmpErr(err, fmt.Errorf("config queue mode number %d is unknown: this lbsim knows 0..%d (%v)", w.Queues, len(sim.QueueModeNames())-1, sim.QueueModeNames()))
	}
	if w.Service < 0 || w.Service > 255 {
		err = cmpErr(err, fmt.Errorf("config service number %d is unknown", w.Service))
	}
	if w.Policy < 0 || w.Policy >= int64(len(sim.PolicyNames())) {
		err = cmpErr(err, fmt.Errorf("config policy number %d is unknown: this lbsim knows 0..%d (%v)", w.Policy, len(sim.PolicyNames())-1, sim.PolicyNames()))
	}
	if err != nil {
		return sim.Config{}, err
	}
	if c.Blocked, err = readRanges(w.Blocked); err != nil {
		return sim.Config{}, err
	}
	if c.Weights, err = readWeights(w.Weights); err != nil {
		return sim.Config{}, err
	}
	if c.Speeds, err = readSpeeds(w.Speeds); err != nil {
		return sim.Config{}, err
	}
	if c.ServiceValues, err = readValues(w.ServiceValues); err != nil {
		return sim.Config{}, err
	}
	if w.TraceMode {
		if c.Trace, err = readTrace(w.Trace); err != nil {
			return sim.Config{}, err
		}
	} else if len(w.Trace) > 0 {
		return sim.Config{}, errors.New("config: trace rows without trace mode")
	}
	if err := c.Validate(); err != nil {
		return sim.Config{}, fmt.Errorf("config: %w", err)
	}
	return c, nil
}

func cmpErr(old, err error) error {
	if old != nil {
		return old
	}
	return err
}

// appendRanges writes each range as two big-endian uint32s.
func appendRanges(b []byte, rs []sim.Range) []byte {
	for _, r := range rs {
		b = binary.BigEndian.AppendUint32(b, r.First)
		b = binary.BigEndian.AppendUint32(b, r.Last)
	}
	return b
}

func readRanges(b []byte) ([]sim.Range, error) {
	if len(b)%8 != 0 {
		return nil, fmt.Errorf("config blocked ranges: %d bytes, want a multiple of 8", len(b))
	}
	if len(b)/8 > MaxBlocked {
		return nil, fmt.Errorf("config blocked ranges: %d ranges, at most %d allowed", len(b)/8, MaxBlocked)
	}
	if len(b) == 0 {
		return nil, nil
	}
	rs := make([]sim.Range, len(b)/8)
	for i := range rs {
		r := sim.Range{First: binary.BigEndian.Uint32(b[8*i:]), Last: binary.BigEndian.Uint32(b[8*i+4:])}
		if r.First > r.Last {
			return nil, fmt.Errorf("config blocked range %d: %s comes after %s", i+1, sim.FormatIPv4(r.First), sim.FormatIPv4(r.Last))
		}
		rs[i] = r
	}
	return rs, nil
}

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
		ServersEjected:    s.ServersEjected,
		ServersWarming:    s.ServersWarming,
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
		ServersEjected:     w.ServersEjected,
		ServersWarming:     w.ServersWarming,
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

// appendWeights writes the swrr weights as unsigned varints.
func appendWeights(b []byte, ws []int) []byte {
	for _, w := range ws {
		b = binary.AppendUvarint(b, uint64(max(w, 0)))
	}
	return b
}

// readWeights reads appendWeights's form, refusing more weights than servers
// can exist and weights beyond an int32.
func readWeights(b []byte) ([]int, error) {
	var ws []int
	for len(b) > 0 {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > math.MaxInt32 {
			return nil, fmt.Errorf("config weights: bad entry %d", len(ws)+1)
		}
		if len(ws) >= sim.MaxServersLimit {
			return nil, fmt.Errorf("config weights: more than %d", sim.MaxServersLimit)
		}
		ws = append(ws, int(v))
		b = b[n:]
	}
	return ws, nil
}

// appendSpeeds writes the speeds, in hundredths, as unsigned varints.
func appendSpeeds(b []byte, vs []sim.Speed) []byte {
	for _, v := range vs {
		b = binary.AppendUvarint(b, uint64(max(v, 0)))
	}
	return b
}

// readSpeeds reads appendSpeeds's form; Validate checks each speed's range.
func readSpeeds(b []byte) ([]sim.Speed, error) {
	var vs []sim.Speed
	for len(b) > 0 {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > math.MaxInt32 {
			return nil, fmt.Errorf("config speeds: bad entry %d", len(vs)+1)
		}
		if len(vs) >= sim.MaxServersLimit {
			return nil, fmt.Errorf("config speeds: more than %d", sim.MaxServersLimit)
		}
		vs = append(vs, sim.Speed(v))
		b = b[n:]
	}
	return vs, nil
}

// appendValues writes the empirical shape's times as unsigned varints.
func appendValues(b []byte, vs []int32) []byte {
	for _, v := range vs {
		b = binary.AppendUvarint(b, uint64(max(v, 0)))
	}
	return b
}

// readValues reads appendValues's form; Validate checks each value's range.
func readValues(b []byte) ([]int32, error) {
	var vs []int32
	for len(b) > 0 {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > math.MaxInt32 {
			return nil, fmt.Errorf("config service values: bad entry %d", len(vs)+1)
		}
		if len(vs) >= sim.MaxServiceValues {
			return nil, fmt.Errorf("config service values: more than %d", sim.MaxServiceValues)
		}
		vs = append(vs, int32(v))
		b = b[n:]
	}
	return vs, nil
}

// orDefault writes a setting equal to its default as 0 (absent), which
// fromDefault reads back as the default: a snapshot of a run that leaves
// them alone carries none of them.
func orDefault(v, def int64) int64 {
	if v == def {
		return 0
	}
	return v
}

func fromDefault(v, def int64) int64 { return cmp.Or(v, def) }
