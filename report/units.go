package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"
)

// TimeUnits are the units --time-unit forces a table's times into; "" (or
// "auto") lets each column choose its own from its figures.
var TimeUnits = []string{"ns", "us", "ms", "s"}

// CheckTimeUnit refuses a unit that is not one of TimeUnits, "auto" or "".
func CheckTimeUnit(unit string) error {
	if _, ok := forcedTime(unit); ok || unit == "" || unit == "auto" {
		return nil
	}
	return fmt.Errorf("time unit %q is not one of auto, %s", unit, strings.Join(TimeUnits, ", "))
}

// timeScale is the unit of one column of times: its name as a header
// writes it and its size in nanoseconds.
type timeScale struct {
	name string
	ns   float64
}

var timeScales = []timeScale{{"ns", 1}, {"µs", 1e3}, {"ms", 1e6}, {"sec", 1e9}}

// forcedTime is the scale a --time-unit names; "µs" reads as "us".
func forcedTime(unit string) (timeScale, bool) {
	switch unit {
	case "ns":
		return timeScales[0], true
	case "us", "µs":
		return timeScales[1], true
	case "ms":
		return timeScales[2], true
	case "s", "sec":
		return timeScales[3], true
	}
	return timeScale{}, false
}

// scaleTimes picks the unit of a column of times in nanoseconds: the one
// forced, or else benchunit's common scale of the figures in seconds (the
// largest unit in which the smallest figure is still at least 1), held
// between ns and seconds.
func scaleTimes(ns []float64, forced string) timeScale {
	if s, ok := forcedTime(forced); ok {
		return s
	}
	secs := make([]float64, 0, len(ns))
	for _, v := range ns {
		if finiteNumber(v) && v != 0 { // a column of zeros reads "0" in ns
			secs = append(secs, v/1e9)
		}
	}
	if len(secs) == 0 {
		return timeScales[0]
	}
	switch benchunit.CommonScale(secs, benchunit.Decimal).Prefix {
	case "n": // below a nanosecond too: benchunit stays at "n"
		return timeScales[0]
	case "µ":
		return timeScales[1]
	case "m":
		return timeScales[2]
	}
	// From a second up benchunit says "", "k" and up, which no one
	// writes for seconds.
	return timeScales[3]
}

// byteScale is the unit of a column of sizes or of byte rates.
type byteScale struct {
	name   string
	factor float64
}

// scaleBytes picks benchunit's binary common scale of a column of sizes:
// "B", "KiB", "MiB", ...
func scaleBytes(vs []float64) byteScale {
	var keep []float64
	for _, v := range vs {
		if finiteNumber(v) {
			keep = append(keep, v)
		}
	}
	s := benchunit.CommonScale(keep, benchunit.Binary)
	return byteScale{name: s.Prefix + "B", factor: s.Factor}
}

// digits3 writes x with three significant digits, and every whole digit it
// has: "1.79", "16.0", "0.0123", "123", "29949". Down a column of one unit
// every figure then has the same precision relative to its size, which is
// what the runs' noise allows; no exponents.
func digits3(x float64) string { return sig(x, 3) }

// sig writes x with digits significant digits, never rounding away a
// whole digit.
func sig(x float64, digits int) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "—"
	case x == 0:
		return "0"
	}
	decimals := max(digits-1-int(math.Floor(math.Log10(math.Abs(x)))), 0)
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	// Rounding up can add a digit ("9.996" -> "10.00"): one decimal fewer.
	if r, _ := strconv.ParseFloat(s, 64); decimals > 0 && math.Floor(math.Log10(math.Abs(r))) > math.Floor(math.Log10(math.Abs(x))) {
		s = strconv.FormatFloat(x, 'f', decimals-1, 64)
	}
	return s
}

// percent writes a relative spread with two significant digits: "0.47%",
// "1.4%", "20%", "109%".
func percent(p float64) string { return sig(p, 2) + "%" }

func finiteNumber(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
