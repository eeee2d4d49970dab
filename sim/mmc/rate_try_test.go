package mmc
import "github.com/lbsim/lbsim/sim"
func rateOf(l float64) sim.Rate { return sim.Rate(l*1e6 + 0.5) }
