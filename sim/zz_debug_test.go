package sim

import "testing"

func TestZZDebug(t *testing.T) {
	cfg := Config{Servers: 3, Cycles: 37, TaskMin: 1, TaskMax: 1, LongShare: 10000, Seed: 0, InitialPerServer: 1, Rate: 13793, WaveAmplitude: 60, WavePeriod: 1, StreamShare: 20,
		Blocked: DefaultBlocked(), ScaleUp: 1001, ScaleDown: 1000, Cooldown: 1, MinServers: 2, MaxServers: 3, QueueCap: 1, Policy: RoundRobin, Queues: PerServer,
		EwmaDecay: 1000, FailTime: 1, Speeds: []Speed{1}, Weights: []int{0}, Switch: true, MTBF: 1, MTTR: 1,
		HealthInterval: 1, HealthFall: 1, HealthRise: 2, EjectAfter: 1, EjectFor: 1}
	m, err := New(cfg, WithEvents())
	if err != nil {
		t.Fatal(err)
	}
	for {
		for _, e := range m.Events() {
			if e.Balancer == 0 && (e.Server == 2 ) {
				t.Log(e.Kind, e.Cycle, e.Server, e.Request.ID)
			}
		}
		if !m.Step() {
			break
		}
	}
}
