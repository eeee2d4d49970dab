package sim

import (
	"errors"
	"strings"
	"testing"
)

func TestConfigSet(t *testing.T) {
	tests := []struct {
		name, value string
		check       func(Config) bool
	}{
		{"servers", "7", func(c Config) bool { return c.Servers == 7 }},
		{"cycles", "123", func(c Config) bool { return c.Cycles == 123 }},
		{"rate", "0.6", func(c Config) bool { return c.Rate == 600_000 }},
		{"wave", "false", func(c Config) bool { return !c.Wave }},
		{"switch", "true", func(c Config) bool { return c.Switch }},
		{"scale-up", "2.5", func(c Config) bool { return c.ScaleUp == 2500 }},
		{"policy", "swrr", func(c Config) bool { return c.Policy == SWRR }},
		{"block", "10.0.0.0/8,192.0.2.1", func(c Config) bool { return len(c.Blocked) == 2 }},
		{"block", "none", func(c Config) bool { return len(c.Blocked) == 0 }},
		{"weights", "5,1,0", func(c Config) bool { return len(c.Weights) == 3 && c.Weights[2] == 0 }},
		{"service", "geometric", func(c Config) bool { return c.Service == Geometric }},
		{"service", "lognormal", func(c Config) bool { return c.Service == Lognormal }},
		{"service-cv", "2.5", func(c Config) bool { return c.ServiceCV == 2_500_000 }},
		{"service-shape", "1.05", func(c Config) bool { return c.ServiceShape == 1_050_000 }},
		{"service-max", "5000", func(c Config) bool { return c.ServiceMax == 5000 }},
		{"long-share", "0.125", func(c Config) bool { return c.LongShare == 125_000 }},
		{"long-share", "0", func(c Config) bool { return c.LongShare == 0 }},
		{"seed", "18446744073709551615", func(c Config) bool { return c.Seed == 1<<64-1 }},
	}
	for _, tt := range tests {
		c := DefaultConfig()
		if err := c.Set(tt.name, tt.value); err != nil || !tt.check(c) {
			t.Errorf("Set(%q, %q): err %v, config %+v", tt.name, tt.value, err, c)
		}
	}
	for _, name := range ConfigNames() {
		c := DefaultConfig()
		if name == "block" || name == "weights" {
			continue // any text is a list
		}
		err := c.Set(name, "not-a-value")
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != name {
			t.Errorf("Set(%q, bad) = %v, want a FieldError naming it", name, err)
		}
	}
	c := DefaultConfig()
	if err := c.Set("nope", "1"); err == nil || !strings.Contains(err.Error(), "servers") {
		t.Errorf("unknown setting: %v, want the allowed names listed", err)
	}
}

// FuzzConfigSet feeds the page's query parser: it never panics, and a value
// it accepts either validates or is refused by Validate with a FieldError.
func FuzzConfigSet(f *testing.F) {
	for _, name := range ConfigNames() {
		f.Add(name, "1")
	}
	f.Add("block", "10.0.0.0/8,1.2.3.4-1.2.3.9")
	f.Add("rate", "0.000001")
	f.Add("weights", "1,,2")
	f.Fuzz(func(t *testing.T, name, value string) {
		c := DefaultConfig()
		if err := c.Set(name, value); err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Validate after Set(%q, %q) = %v, not a FieldError", name, value, err)
			}
		}
	})
}

// TestSetEwmaDecay: peak-ewma's τ takes whole cycles from 1 to
// MaxEwmaDecay, and names the setting when refused.
func TestSetEwmaDecay(t *testing.T) {
	for _, c := range []struct {
		value string
		ok    bool
	}{{"1", true}, {"1000", true}, {"1000000000", true}, {"0", false}, {"-5", false}, {"1000000001", false}, {"1.5", false}, {"", false}} {
		cfg := DefaultConfig()
		err := cfg.Set("ewma-decay", c.value)
		if err == nil {
			err = cfg.Validate()
		}
		if (err == nil) != c.ok || err != nil && !strings.Contains(err.Error(), "ewma-decay") {
			t.Errorf("ewma-decay=%q: %v, want ok %v and an error naming the setting", c.value, err, c.ok)
		}
	}
}
