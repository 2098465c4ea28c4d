//go:build !linux

package servers

import (
	"time"
)

// threadCPU falls back to wall time where the thread's CPU clock is not at hand.
func threadCPU() (now func() time.Duration, done func()) {
	start := time.Now()
	return func() time.Duration { return time.Since(start) }, func() {}
}
