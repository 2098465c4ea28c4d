package main

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/specrun/specrun/results"
	"github.com/specrun/specrun/spec"
)

// shardFlag is `--shard I/N`: this process runs part I (from 0) of N.
type shardFlag struct {
	index, count int
	set          bool
}

func (s *shardFlag) String() string {
	if !s.set {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.index, s.count)
}

func (s *shardFlag) Set(v string) error {
	i, n, ok := strings.Cut(v, "/")
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || count < 1 || index < 0 || index >= count || count > maxShards {
		return fmt.Errorf("want I/N, the part I (0 to N-1) of N shards, N at most %d; not %q", maxShards, v)
	}
	s.index, s.count, s.set = index, count, true
	return nil
}

// maxShards bounds N: more parts than that is a typo, not a fleet.
const maxShards = 10000

// shareOf is part i of n of total: the parts of 0..n-1 add up to total
// exactly, and differ by one at most (k6's execution segments, cut at
// i/n and (i+1)/n).
func shareOf(total int64, i, n int) int64 {
	return total*int64(i+1)/int64(n) - total*int64(i)/int64(n)
}

// shard keeps the plan's part for shard i of n: each http phase's
// concurrency, requests and rate divided so that the parts add up to the
// whole, and every other benchmark on shard 0 only, unless it sets
// every_shard. A phase with fewer
// connections (or, counted, requests) than shards cannot be divided
// without a shard that sends nothing, and is refused.
func shard(plan *spec.Plan, s shardFlag) error {
	if !s.set {
		return nil
	}
	var kept []*spec.Benchmark
	for _, b := range plan.Benchmarks {
		if b.Op == nil || b.Op.Name != "http" {
			if s.index == 0 || b.EveryShard {
				kept = append(kept, b)
			}
			continue
		}
		p := maps.Clone(b.Params)
		for _, name := range []string{"concurrency", "requests"} {
			if name == "requests" && p.Has("duration") {
				continue // a timed phase: each shard lasts the whole duration
			}
			total := p.Int(name)
			if total < int64(s.count) {
				return usageError("--shard %v: %s has %s = %d, fewer than the %d shards: each shard needs one at least; "+
					"raise it or run fewer shards", &s, b.Name, name, total, s.count)
			}
			p[name] = shareOf(total, s.index, s.count)
		}
		if p.Has("rate") {
			p["rate"] = p.Float("rate") / float64(s.count)
		}
		b.Params = p
		kept = append(kept, b)
	}
	plan.Benchmarks = kept
	return nil
}

// startAt waits until t, the wall-clock time that every shard was told to
// begin at, and returns how late it began. A start later than maxSkew
// (the shard was launched too late, or its clock is off) is a warning:
// its load overlaps the others' less.
func startAt(ctx context.Context, t time.Time, maxSkew time.Duration) (late time.Duration, warning string, err error) {
	if d := time.Until(t); d > 0 {
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-ctx.Done():
			return 0, "", ctx.Err()
		case <-timer.C:
		}
	}
	late = time.Since(t)
	if late > maxSkew {
		warning = fmt.Sprintf("--start-at %s: began %v late, more than --max-skew %v: this shard's load overlaps the others' less",
			t.Format(time.RFC3339Nano), late.Round(time.Millisecond), maxSkew)
	}
	return late, warning, nil
}

// parseStartAt reads --start-at: an RFC 3339 time, or +DURATION from now.
func parseStartAt(v string) (time.Time, error) {
	if d, ok := strings.CutPrefix(v, "+"); ok {
		dur, err := time.ParseDuration(d)
		if err != nil || dur < 0 {
			return time.Time{}, usageError("--start-at %q: want an RFC 3339 time (2026-12-01T10:30:00Z) or +DURATION", v)
		}
		return time.Now().Add(dur), nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, usageError("--start-at %q: want an RFC 3339 time (2026-12-01T10:30:00Z) or +DURATION", v)
	}
	return t, nil
}

// maxStartWait bounds --start-at: a start a day away is a mistyped date.
const maxStartWait = 24 * time.Hour

// shardRecord is what the result records of the shard.
func shardRecord(s shardFlag, at time.Time, late time.Duration) *results.Shard {
	if !s.set && at.IsZero() {
		return nil
	}
	r := &results.Shard{Index: s.index, Count: max(s.count, 1), LateNs: late.Nanoseconds()}
	if !at.IsZero() {
		utc := at.UTC()
		r.StartAt = &utc
	}
	return r
}
