//go:build !linux

package ops

import (
	"net/netip"
	"sync/atomic"
	"time"
)

// sleepUntil waits for the monotonic clock (monoNow) to reach t, as
// precisely as the runtime's timers allow, or for stop, and reports
// whether t came.
func sleepUntil(t int64, stop *atomic.Bool) bool {
	for !stop.Load() {
		d := t - monoNow()
		if d <= 0 {
			return true
		}
		time.Sleep(min(time.Duration(d), 50*time.Millisecond))
	}
	return false
}

// rawDial is Linux's; elsewhere net's dialer connects.
func rawDial(netip.AddrPort, bool) (conn, func() error, bool) { return nil, nil, false }
