//go:build refstrict

package sim_test

// refKnownDeviations is false under -tags refstrict: the reference follows
// the documented rules everywhere (see reference_known_test.go).
const refKnownDeviations = false
