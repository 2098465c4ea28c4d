package servers

import (
	"crypto/sha256"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// DefaultBodySize is the builtin static page's size when a server block
// sets none: 5.9 KB, the page of the classic ab write-up.
const DefaultBodySize = 6041

// Static is the builtin "static" server: one page of BodySize bytes, with
// Work of CPU spent per request, standing in for an application's handler.
// The work is a fixed amount of SHA-256 hashing, calibrated once to take
// Work on an idle core, so that a loaded server's CPU per request stays
// what was asked while its wall time grows, as a real handler's would.
type Static struct {
	BodySize int64
	Work     time.Duration

	once   sync.Once
	page   []byte
	rounds int // hashes of workBlock per request
}

// workBlock is what one round of simulated work hashes (a copy of it, so
// that concurrent requests share nothing).
var workBlock [1024]byte

// Handler returns the server's handler; it calibrates the work first.
func (s *Static) Handler() http.Handler {
	s.once.Do(s.init)
	length := strconv.Itoa(len(s.page))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.rounds > 0 {
			burn(s.rounds)
		}
		h := w.Header()
		h["Content-Type"] = []string{"text/html; charset=utf-8"}
		h["Content-Length"] = []string{length}
		w.Write(s.page)
	})
}

func (s *Static) init() {
	s.page = page(s.BodySize)
	if s.Work > 0 {
		s.rounds = calibrate(s.Work)
	}
}

// page is an HTML page of exactly n bytes (or n filler bytes when n is too
// small for the markup).
func page(n int64) []byte {
	const head, tail = "<!DOCTYPE html><html><body><p>", "</p></body></html>\n"
	b := make([]byte, n)
	for i := range b {
		b[i] = "specrun static page "[i%20]
	}
	if n >= int64(len(head)+len(tail)) {
		copy(b, head)
		copy(b[n-int64(len(tail)):], tail)
	}
	return b
}

// sink keeps burn's result alive.
var sink [sha256.Size]byte

// burn hashes workBlock rounds times.
func burn(rounds int) {
	var sum [sha256.Size]byte
	block := workBlock
	for i := 0; i < rounds; i++ {
		sum = sha256.Sum256(block[:])
		block[0] ^= sum[0] // a dependency between rounds: none can be skipped
	}
	sink = sum
}

// calibrate returns how many rounds of burn take d of CPU time: the median
// of trials timed on the thread's CPU clock, which preemption does not
// disturb. The median, not the fastest, because what slows hashing on a busy
// machine (a busy sibling hyperthread, cold caches) slows the requests too:
// two servers calibrated a moment apart then agree on what d costs.
func calibrate(d time.Duration) int {
	now, done := threadCPU()
	defer done()
	return roundsFor(d, now, burn)
}

// roundsFor is calibrate with its clock and its work handed in.
func roundsFor(d time.Duration, now func() time.Duration, burn func(rounds int)) int {
	const trial, trials = 1000, 21
	times := make([]time.Duration, trials)
	for i := range times {
		start := now()
		burn(trial)
		times[i] = now() - start
	}
	slices.Sort(times)
	return max(1, int(int64(d)*trial/int64(max(times[trials/2], 1))))
}
