//go:build !js

package e2e

import "flag"

// testingOutputDir returns the -test.outputdir flag's value.
func testingOutputDir() string {
	if f := flag.Lookup("test.outputdir"); f != nil {
		return f.Value.String()
	}
	return ""
}
