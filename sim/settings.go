package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// Set gives the setting called name (a `lbsim run` flag name without
// dashes) the value written as on the command line. The web page reads its
// query parameters with it, so a link and a command line mean the same run.
// "block" takes a comma-separated list of ranges ("none" for none) and
// replaces the list. Errors name the setting and what it allows.
func (c *Config) Set(name, value string) error {
	value = strings.TrimSpace(value)
	whole := func(p *int) error {
		n, err := strconv.Atoi(value)
		if err != nil {
			return &FieldError{Field: name, Value: strconv.Quote(value), Allowed: "want a whole number"}
		}
		*p = n
		return nil
	}
	whole64 := func(p *int64) error {
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return &FieldError{Field: name, Value: strconv.Quote(value), Allowed: "want a whole number"}
		}
		*p = n
		return nil
	}
	switch name {
	case "servers":
		return whole(&c.Servers)
	case "cycles":
		return whole64(&c.Cycles)
	case "task-min":
		return whole(&c.TaskMin)
	case "task-max":
		return whole(&c.TaskMax)
	case "initial-per-server":
		return whole(&c.InitialPerServer)
	case "wave-amplitude":
		return whole(&c.WaveAmplitude)
	case "wave-period":
		return whole64(&c.WavePeriod)
	case "stream-share":
		return whole(&c.StreamShare)
	case "cooldown":
		return whole64(&c.Cooldown)
	case "min-servers":
		return whole(&c.MinServers)
	case "max-servers":
		return whole(&c.MaxServers)
	case "queue-cap":
		return whole(&c.QueueCap)
	case "fail-time":
		if err := whole64(&c.FailTime); err != nil {
			return err
		}
		if c.FailTime < 1 {
			return &FieldError{Field: name, Value: value, Allowed: "want a whole number of cycles from 1 to " + strconv.Itoa(MaxTaskTime)}
		}
		return nil
	case "ewma-decay":
		if err := whole64(&c.EwmaDecay); err != nil {
			return err
		}
		if c.EwmaDecay < 1 {
			return &FieldError{Field: name, Value: value, Allowed: "want a whole number of cycles from 1 to " + strconv.Itoa(MaxEwmaDecay)}
		}
		return nil
	case "weights":
		var ws []int
		if value != "" {
			for _, f := range strings.Split(value, ",") {
				w, err := strconv.Atoi(strings.TrimSpace(f))
				if err != nil {
					return &FieldError{Field: name, Value: strconv.Quote(f), Allowed: "want whole-number weights separated by commas, like 5,1,1"}
				}
				ws = append(ws, w)
			}
		}
		c.Weights = ws
		return nil
	case "choices":
		if err := whole(&c.Choices); err != nil {
			return err
		}
		if c.Choices < 1 || c.Choices > MaxChoices {
			return &FieldError{Field: name, Value: value, Allowed: fmt.Sprintf("must be a whole number from 1 to %d", MaxChoices)}
		}
		return nil
	case "speeds":
		var vs []Speed
		if value != "" {
			for _, f := range strings.Split(value, ",") {
				v, err := ParseSpeed(f)
				if err != nil {
					return &FieldError{Field: name, Value: strconv.Quote(strings.TrimSpace(f)), Allowed: "want speeds from 0.01 to 100 (at most two decimals) separated by commas, like 2,1,0.5"}
				}
				vs = append(vs, v)
			}
		}
		c.Speeds = vs
		return nil
	case "queues":
		q, err := ParseQueueMode(value)
		if err != nil {
			return &FieldError{Field: name, Value: strconv.Quote(value), Allowed: "want one of " + strings.Join(QueueModeNames(), ", ")}
		}
		c.Queues = q
		return nil
	case "service":
		v, err := ParseService(value)
		if err != nil {
			return &FieldError{Field: name, Value: strconv.Quote(value), Allowed: "want one of " + strings.Join(ServiceNames(), ", ")}
		}
		c.Service = v
		return nil
	case "mean-service":
		return whole(&c.MeanService)
	case "service-max":
		return whole(&c.ServiceMax)
	case "service-cv", "service-shape", "long-share":
		d, err := ParseDecimal(value)
		if err != nil {
			return &FieldError{Field: name, Value: strconv.Quote(value), Allowed: err.Error() + "; want a decimal like 1.5"}
		}
		switch name {
		case "service-cv":
			if d <= 0 || d > MaxServiceCV {
				return &FieldError{Field: name, Value: value, Allowed: cvAllowed}
			}
			c.ServiceCV = d
		case "service-shape":
			if d <= DecimalScale || d > MaxServiceShape {
				return &FieldError{Field: name, Value: value, Allowed: alphaAllowed}
			}
			c.ServiceShape = d
		default:
			c.LongShare = d
		}
		return nil
	case "timeout":
		return whole64(&c.Timeout)
	case "retries":
		return whole(&c.Retries)
	case "backoff":
		return whole64(&c.Backoff)
	case "health-interval":
		return whole64(&c.HealthInterval)
	case "health-fall", "health-rise":
		p := &c.HealthFall
		if name == "health-rise" {
			p = &c.HealthRise
		}
		if err := whole(p); err != nil {
			return err
		}
		if *p < 1 {
			return &FieldError{Field: name, Value: value, Allowed: "want a whole number of probes from 1 to " + strconv.Itoa(MaxHealthCount)}
		}
		return nil
	case "eject-after":
		return whole(&c.EjectAfter)
	case "eject-for":
		if err := whole64(&c.EjectFor); err != nil {
			return err
		}
		if c.EjectFor < 1 {
			return &FieldError{Field: name, Value: value, Allowed: "want a whole number of cycles from 1 to " + strconv.Itoa(MaxCycles)}
		}
		return nil
	case "provision-delay":
		return whole64(&c.ProvisionDelay)
	case "replace-after":
		return whole64(&c.ReplaceAfter)
	case "retry-budget":
		d, err := ParseDecimal(value)
		if err != nil {
			return &FieldError{Field: name, Value: strconv.Quote(value), Allowed: err.Error() + "; want 0 (none) or a share above 0 and at most 1, like 0.1"}
		}
		c.RetryBudget = d
		return nil
	case "mtbf":
		return whole64(&c.MTBF)
	case "mttr":
		return whole64(&c.MTTR)
	case "seed":
		n, err := strconv.ParseUint(value, 10, 64)
		if err != nil {
			return &FieldError{Field: name, Value: strconv.Quote(value), Allowed: "want a whole number from 0 to 18446744073709551615"}
		}
		c.Seed = n
	case "rate":
		r, err := ParseRate(value)
		if err != nil {
			return &FieldError{Field: name, Value: strconv.Quote(value), Allowed: err.Error() + "; want arrivals per cycle like 0.45"}
		}
		c.Rate = r
	case "scale-up", "scale-down":
		f, err := ParseFactor(value)
		if err != nil {
			return &FieldError{Field: name, Value: strconv.Quote(value), Allowed: err.Error() + "; want requests per active server like 80"}
		}
		if name == "scale-up" {
			c.ScaleUp = f
		} else {
			c.ScaleDown = f
		}
	case "wave", "switch", "jitter":
		b, err := strconv.ParseBool(value)
		if err != nil {
			return &FieldError{Field: name, Value: strconv.Quote(value), Allowed: "want true or false"}
		}
		switch name {
		case "wave":
			c.Wave = b
		case "switch":
			c.Switch = b
		default:
			c.Jitter = b
		}
	case "policy":
		p, err := ParsePolicy(value)
		if err != nil {
			return &FieldError{Field: name, Value: strconv.Quote(value), Allowed: "want one of " + strings.Join(PolicyNames(), ", ")}
		}
		c.Policy = p
	case "block":
		var rs []Range
		if value != "none" && value != "" {
			for _, s := range strings.Split(value, ",") {
				r, err := ParseRange(s)
				if err != nil {
					return &FieldError{Field: name, Value: strconv.Quote(s), Allowed: err.Error()}
				}
				rs = append(rs, r)
			}
		}
		c.Blocked = rs
	default:
		return fmt.Errorf("unknown setting %q: allowed %s", quoted(name), strings.Join(ConfigNames(), ", "))
	}
	return nil
}

// ConfigNames lists the names Set accepts.
func ConfigNames() []string {
	return []string{"servers", "cycles", "task-min", "task-max", "seed", "initial-per-server", "rate", "wave",
		"wave-amplitude", "wave-period", "stream-share", "block", "scale-up", "scale-down", "cooldown",
		"min-servers", "max-servers", "queue-cap", "queues", "policy", "choices", "ewma-decay", "weights", "speeds", "switch", "mtbf", "mttr", "fail-time", "service", "mean-service",
		"service-cv", "service-shape", "service-max", "long-share",
		"timeout", "retries", "backoff", "jitter", "retry-budget", "health-interval", "health-fall", "health-rise",
		"eject-after", "eject-for", "provision-delay", "replace-after"}
}

// FillDefaults sets the defaults that depend on other settings, for those
// not given (given reports whether a setting, by its flag name, was set):
// max-servers follows servers (DefaultMaxServers), and per-server queues
// route by round-robin (nginx's default) rather than first-idle. The
// command line and the page's query parameters both apply it.
func (c *Config) FillDefaults(given func(name string) bool) {
	if !given("max-servers") {
		c.MaxServers = DefaultMaxServers(c.Servers)
	}
	if !given("policy") && c.Queues == PerServer {
		c.Policy = DefaultPolicy(PerServer)
	}
}

// DefaultMaxServers is the max-servers used when none is given: five times
// the starting pool, at least 100, at most MaxServersLimit.
func DefaultMaxServers(servers int) int {
	return min(max(100, 5*servers), MaxServersLimit)
}
