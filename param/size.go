package param

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"
)

// Size units. KB, MB, GB and TB are 1024-based, as in the memory-benchmark
// tradition of the classic tables, and mean the same as KiB, MiB, GiB, TiB.
const (
	KiB int64 = 1 << (10 * (iota + 1))
	MiB
	GiB
	TiB
)

// sizeUnits maps a lower-cased unit suffix to its multiplier.
var sizeUnits = map[string]int64{
	"": 1, "b": 1,
	"k": KiB, "kb": KiB, "kib": KiB,
	"m": MiB, "mb": MiB, "mib": MiB,
	"g": GiB, "gb": GiB, "gib": GiB,
	"t": TiB, "tb": TiB, "tib": TiB,
}

// ParseSize parses a size such as "16B", "1MB", "4KiB", "1.5KB" or "4096"
// into bytes. Units are case-insensitive and 1024-based; a decimal number is
// accepted only when it comes to a whole number of bytes ("1.5KB" is 1536,
// "5.9KB" is an error), because results record exact bytes. Negative sizes
// are errors; zero is allowed here and rejected by callers that need more.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	if num == "" {
		if strings.HasPrefix(t, "-") {
			return 0, fmt.Errorf("size %q is negative", s)
		}
		return 0, fmt.Errorf("size %q does not start with a number of bytes", s)
	}
	if strings.Count(num, ".") > 1 || num == "." {
		return 0, fmt.Errorf("size %q has a malformed number", s)
	}
	mult, ok := sizeUnits[strings.ToLower(unit)]
	if !ok {
		return 0, fmt.Errorf("size %q has unknown unit %q; use B, KB, MB, GB, TB (1024-based) or KiB, MiB, GiB, TiB", s, unit)
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, fmt.Errorf("size %q has a malformed number", s)
	}
	r.Mul(r, new(big.Rat).SetInt64(mult))
	if !r.IsInt() {
		return 0, fmt.Errorf("size %q is not a whole number of bytes", s)
	}
	if !r.Num().IsInt64() {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return r.Num().Int64(), nil
}

// SizeFromFloat converts a number of bytes written as a number, checking
// that it is whole, finite and not negative.
func SizeFromFloat(f float64) (int64, error) {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return 0, fmt.Errorf("size %v is not a finite number of bytes", f)
	case f < 0:
		return 0, fmt.Errorf("size %v is negative", f)
	case f != math.Trunc(f):
		return 0, fmt.Errorf("size %v is not a whole number of bytes", f)
	case f >= math.MaxInt64:
		return 0, fmt.Errorf("size %v is too large", f)
	}
	return int64(f), nil
}

// FormatSize writes n bytes in the largest unit that divides it exactly,
// the way specs write sizes: 16 -> "16B", 1048576 -> "1MB", 1536 -> "1536B".
// ParseSize(FormatSize(n)) == n for every n >= 0.
func FormatSize(n int64) string {
	for _, u := range []struct {
		name string
		mult int64
	}{{"TB", TiB}, {"GB", GiB}, {"MB", MiB}, {"KB", KiB}} {
		if n != 0 && n%u.mult == 0 {
			return fmt.Sprintf("%d%s", n/u.mult, u.name)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// ParseDuration parses a duration in Go syntax ("300us", "1m30s"). Negative
// durations are errors: every duration in a spec is a span of time to wait
// or to measure.
func ParseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("duration %q is not in Go syntax such as \"300us\", \"2s\" or \"1m30s\"", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("duration %q: durations cannot be negative", s)
	}
	return d, nil
}
