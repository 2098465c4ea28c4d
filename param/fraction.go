package param

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseFraction parses a relative amount written as a percentage, "5%",
// or as a fraction, "0.05", into a fraction from 0 up to, not including, 1.
func ParseFraction(s string) (float64, error) {
	t := strings.TrimSpace(s)
	num, percent := strings.CutSuffix(t, "%")
	f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a percentage such as \"5%%\" or a fraction such as 0.05", s)
	}
	if percent {
		f /= 100
	}
	return f, CheckFraction(f)
}

// CheckFraction refuses a relative amount outside [0, 1).
func CheckFraction(f float64) error {
	if !(f >= 0 && f < 1) {
		return fmt.Errorf("%s is not from 0 up to 100%%", strconv.FormatFloat(100*f, 'g', -1, 64)+"%")
	}
	return nil
}
