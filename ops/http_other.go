//go:build !linux

package ops

import (
	"net/netip"
	"time"
)

// sleepUntil waits for the monotonic clock (monoNow) to reach t, as
// precisely as the runtime's timers allow.
func sleepUntil(t int64) {
	if d := t - monoNow(); d > 0 {
		time.Sleep(time.Duration(d))
	}
}

// rawDial is Linux's; elsewhere net's dialer connects.
func rawDial(netip.AddrPort, bool) (conn, func() error, bool) { return nil, nil, false }
