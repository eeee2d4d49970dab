package sim

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
