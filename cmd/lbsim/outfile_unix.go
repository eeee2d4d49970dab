//go:build unix

package main

import (
	"errors"
	"os"
	"syscall"
)

// openThrough opens a device or FIFO for writing in place. A FIFO nobody
// reads is refused at once instead of blocking the command.
func openThrough(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ENXIO) {
		return nil, errors.New("a FIFO with no reader")
	}
	return f, err
}
