//go:build !linux

package ops

import "time"

// sleepUntil waits for the monotonic clock (monoNow) to reach t, as
// precisely as the runtime's timers allow.
func sleepUntil(t int64) {
	if d := t - monoNow(); d > 0 {
		time.Sleep(time.Duration(d))
	}
}
