//go:build !unix

package main

import "os"

// openThrough opens a device for writing in place.
func openThrough(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY, 0)
}
