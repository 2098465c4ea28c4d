//go:build !linux

package main

import (
	"fmt"
	"os"
)

// onTTY needs Linux's pseudo-terminals; scripts run it under [linux].
func onTTY([]string) int {
	fmt.Fprintln(os.Stderr, "ontty: pseudo-terminals are opened on Linux only")
	return 2
}
