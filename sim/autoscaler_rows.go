package sim

import (
	"fmt"
	"strings"
)

// Autoscaler is the rule that sizes the pool: the queue rule (one server
// per cooldown when the queue passes U or D per active server) or target
// tracking (the pool jumps to the size that brings a metric to a target).
type Autoscaler uint8

// The autoscalers.
const (
	QueueRule Autoscaler = iota
	TargetTracking
)

var autoscalerNames = [...]string{"queue", "target"}

// AutoscalerNames lists the autoscalers' names in their numbering order.
func AutoscalerNames() []string { return autoscalerNames[:] }

// ParseAutoscaler reads an autoscaler's name.
func ParseAutoscaler(s string) (Autoscaler, error) {
	for i, n := range autoscalerNames {
		if s == n {
			return Autoscaler(i), nil
		}
	}
	return 0, fmt.Errorf("unknown autoscaler %q: allowed %s", quoted(s), strings.Join(autoscalerNames[:], ", "))
}

// ScaleMetric is what target tracking measures each cycle: busy active
// servers, queued and in-service work, or queued work, each per active
// server.
type ScaleMetric uint8

// The metrics.
const (
	MetricUtilization ScaleMetric = iota
	MetricInflight
	MetricQueue
)

var scaleMetricNames = [...]string{"utilization", "inflight", "queue"}

// ScaleMetricNames lists the metrics' names in their numbering order.
func ScaleMetricNames() []string { return scaleMetricNames[:] }

// ParseScaleMetric reads a metric's name.
func ParseScaleMetric(s string) (ScaleMetric, error) {
	for i, n := range scaleMetricNames {
		if s == n {
			return ScaleMetric(i), nil
		}
	}
	return 0, fmt.Errorf("unknown scale metric %q: allowed %s", quoted(s), strings.Join(scaleMetricNames[:], ", "))
}

// Limits and defaults of target tracking.
const (
	DefaultScalePeriod             = 15
	MaxScalePeriod                 = 1_000_000
	DefaultScaleUtil       Decimal = 700_000 // X for utilization
	MinScaleTarget         Decimal = 10_000  // 0.01
	MaxScaleTarget         Decimal = 1_000_000 * DecimalScale
	DefaultScaleTolerance  Decimal = 100_000 // 0.1
	DefaultScaleDownWindow         = 300
	MaxScaleDownWindow             = 1_000_000
)

// targetOn and queueRuleOn report which autoscaler a run state uses.
func targetOn(c *Config) bool    { return c.Autoscaler == TargetTracking }
func queueRuleOn(c *Config) bool { return c.Autoscaler == QueueRule }

// needsTarget is needs for a setting of target tracking.
func (r Row) needsTarget() Row {
	return r.needs([]string{"--autoscaler", "target"}, targetOn, func(*Config) string {
		return fmt.Sprintf("applies only with --autoscaler target, and the run uses the queue rule: give --autoscaler target, or drop --%s", r.Name)
	})
}

// needsQueueRule is needs for a setting of the queue rule.
func (r Row) needsQueueRule() Row {
	return r.needs([]string{"--autoscaler", "queue"}, queueRuleOn, func(*Config) string {
		return fmt.Sprintf("applies only to the queue rule (--autoscaler queue), and the run uses target tracking: drop --%s (--scale-period and --scale-target size the pool)", r.Name)
	})
}

// plusOne makes a row whose Config field holds its value plus one, so
// that 0 (a Config's zero, a snapshot's absent key) stands for the
// default def while a value of 0 can still be given.
func (r Row) plusOne(def int64) Row {
	parse, format := r.parse, r.format
	r.parse = func(s string) (int64, error) { v, err := parse(s); return v + 1, err }
	r.format = func(v int64) string { return format(v - 1) }
	r.lo, r.hi = r.lo+1, r.hi+1
	r.zeroDefault, r.storedPlusOne = true, true
	r.def = format(def)
	return r
}

// PlusOne reports whether the row's Config field holds its value plus
// one (so 0 there stands for the default): its stored values, as Bounds
// gives them, are one above the values written.
func (r *Row) PlusOne() bool { return r.storedPlusOne }

// scaleTolerance and scaleDownWindow read the plus-one fields.
func (c *Config) scaleTolerance() int64 {
	if c.ScaleTolerance == 0 {
		return int64(DefaultScaleTolerance)
	}
	return int64(c.ScaleTolerance) - 1
}

func (c *Config) scaleDownWindow() int64 {
	if c.ScaleDownWindow == 0 {
		return DefaultScaleDownWindow
	}
	return c.ScaleDownWindow - 1
}

// scaleTarget returns X in millionths (the default for utilization).
func (c *Config) scaleTarget() int64 {
	if c.ScaleTarget == 0 {
		return int64(DefaultScaleUtil)
	}
	return int64(c.ScaleTarget)
}

// scalePeriod returns P.
func (c *Config) scalePeriod() int64 {
	if c.ScalePeriod == 0 {
		return DefaultScalePeriod
	}
	return c.ScalePeriod
}

// autoscalerRows are target tracking's settings.
func autoscalerRows() []Row {
	return []Row{
		choice("autoscaler", "the rule that sizes the pool: queue (one server per cooldown past U or D) or target (jump to the size that brings --scale-metric to --scale-target)", func(c *Config) *Autoscaler { return &c.Autoscaler }, AutoscalerNames, ParseAutoscaler).
			defaults("queue").example("target").wire("as", 55).small(0, 1).group(GroupRun),
		choice("scale-metric", "target tracking's metric, per active server each cycle: utilization (busy), inflight (queued + in service) or queue (queued)", func(c *Config) *ScaleMetric { return &c.ScaleMetric }, ScaleMetricNames, ParseScaleMetric).
			defaults("utilization").example("inflight").wire("smt", 56).small(0, 2).needsTarget().withNeeds("--autoscaler", "target", "--scale-target", "2").testWith("autoscaler", "target", "scale-target", "0.5").group(GroupRun),
		fixed("scale-target", "X: the metric's target (utilization: above 0, at most 1; default 0.7; required for inflight and queue)", "", func(c *Config) *Decimal { return &c.ScaleTarget }, ParseDecimal, MinScaleTarget, MaxScaleTarget,
			"must be from 0.01 to 1000000 (at most 1 for utilization), with at most 6 decimals", "want a decimal like 0.7").zero().defaults("0.7").changeable(SetScaleTarget).
			example("0.3").wire("sx", 57).small(0, 2*DecimalScale).needsTarget().group(GroupRun),
		whole("scale-period", "P: target tracking evaluates every P cycles, on the metric's mean over the last P", "cycles", func(c *Config) *int64 { return &c.ScalePeriod }, 1, MaxScalePeriod,
			fmt.Sprintf("must be a whole number of cycles from 1 to %d", MaxScalePeriod)).zero().defaults("15").example("40").wire("sp", 58).small(0, 30).needsTarget().group(GroupRun),
		fixed("scale-tolerance", "no move while the metric is within this share of the target", "", func(c *Config) *Decimal { return &c.ScaleTolerance }, ParseDecimal, 0, DecimalScale,
			"must be from 0 to 1, with at most 6 decimals", "want a share like 0.1").plusOne(int64(DefaultScaleTolerance)).ranged("0..1").changeable(SetScaleTolerance).
			example("0").wire("st", 59).small(0, DecimalScale/2).needsTarget().group(GroupRun),
		whole("scale-down-window", "W: shrink only to the highest proposal of the last W cycles (0: this evaluation's)", "cycles", func(c *Config) *int64 { return &c.ScaleDownWindow }, 0, MaxScaleDownWindow,
			fmt.Sprintf("must be a whole number of cycles from 0 to %d", MaxScaleDownWindow)).plusOne(DefaultScaleDownWindow).ranged(rangeText(0, MaxScaleDownWindow)).changeable(SetScaleDownWindow).
			example("0").wire("sdw", 60).small(0, 80).needsTarget().group(GroupRun),
	}
}

// String returns the metric's name.
func (s ScaleMetric) String() string {
	if int(s) < len(scaleMetricNames) {
		return scaleMetricNames[s]
	}
	return fmt.Sprintf("scale-metric(%d)", s)
}
