//go:build !linux

package main

import (
	"fmt"
	"os"
)

func havePTY() bool { return false }

// onTTY needs Linux's pseudo-terminals; scripts run it under [pty].
func onTTY([]string) int {
	fmt.Fprintln(os.Stderr, "ontty: pseudo-terminals are opened on Linux only")
	return 2
}
