package sim

// What the reference model's differential tests (package sim_test) use of
// the client side's generators.
var (
	// GenClientConfig draws a small busy run with the client side on.
	GenClientConfig = genClientConfig
	// GenClientSettings draws the client side's settings into a
	// configuration.
	GenClientSettings = genClientSettings
	// GenClientChanges draws gray and down/up faults and changes of the
	// client side's settings.
	GenClientChanges = genClientChanges
)
