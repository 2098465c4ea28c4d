//go:build !linux

package ops

import (
	"net/netip"
	"sync/atomic"
	"time"
)

// pacer waits for an open model's send times, as precisely as the
// runtime's timers allow.
type pacer struct{}

func newPacer() *pacer { return &pacer{} }

// wait waits for the monotonic clock (monoNow) to reach t, or for stop,
// and reports whether t came. It looks at stop at least every 50 ms.
func (p *pacer) wait(t int64, stop *atomic.Bool) bool {
	for !stop.Load() {
		d := t - monoNow()
		if d <= 0 {
			return true
		}
		time.Sleep(min(time.Duration(d), 50*time.Millisecond))
	}
	return false
}

func (p *pacer) close() {}

// rawDial is Linux's; elsewhere net's dialer connects.
func rawDial(netip.AddrPort, bool) (conn, func() error, bool) { return nil, nil, false }

// newLoopClient is Linux's; elsewhere a goroutine per connection sends.
func newLoopClient(*httpOp) client { return nil }
