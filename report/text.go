package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/specrun/specrun/results"
)

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

// nanoseconds formats a time per op as the classic table does, one
// decimal: "28.9", "361767086.5", and below 1 ns two significant digits,
// "0.31". A table forced into ns (the classic example's time_unit) keeps it.
func nanoseconds(ns float64) string {
	if math.Abs(ns) < 1 && ns != 0 {
		if s := significant(ns, 2); s != "1" && s != "-1" {
			return s
		}
		// 0.996 rounds up to 1 at two digits: it reads as the figures
		// at or above 1 do, "1.0", not "1".
	}
	return strconv.FormatFloat(ns, 'f', 1, 64)
}

// significant formats x, |x| < 1, rounded to digits significant digits,
// without trailing zeros or an exponent: "0.7", "0.31".
func significant(x float64, digits int) string {
	if x == 0 {
		return "0"
	}
	decimals := max(digits-1-int(math.Floor(math.Log10(math.Abs(x)))), 0)
	rounded, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', decimals, 64), 64)
	return strconv.FormatFloat(rounded, 'f', -1, 64)
}

// levelNote marks an interval below the 95% that a reader assumes of ±:
// " (75%)" for three runs' min..max.
func levelNote(in results.Interval) string {
	if in.Confidence >= results.Confidence || in.Kind == results.Point {
		return ""
	}
	return " (" + results.Percent(in.Confidence) + ")"
}

// escape keeps user text from breaking a Markdown table row, starting
// markup or raw HTML, or reaching a terminal as a control sequence: it is
// oneLine, with "|" as "\|", and "<" and "&" as entities: without a "<"
// no tag starts, and ">" reads as itself ("2 -> 2.4 ns/op").
func escape(s string) string {
	return markdownEscaper.Replace(oneLine(s))
}

var markdownEscaper = strings.NewReplacer("|", `\|`, "&", "&amp;", "<", "&lt;")

// oneLine is printable(s) kept on one line: a line break is a space.
func oneLine(s string) string {
	return printable(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
}

// printable writes each control character of s that a terminal acts on (C0
// but tab and newline, DEL, C1, and bytes that are not UTF-8) as its \x
// escape, so that a report shown on a terminal cannot move its cursor,
// retitle its window or write its clipboard (ESC ] 52).
func printable(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, control) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case control(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// control reports a rune that printable replaces.
func control(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n') || (r >= 0x7f && r <= 0x9f)
}

// humanBytes renders a size in 1024-based units, as specs write sizes:
// "512 B", "30 MiB".
func humanBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for math.Abs(b) >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	return trimZeros(fmt.Sprintf("%.3g", b)) + " " + units[i]
}

// trimZeros keeps "%.3g" from writing exponents for whole numbers up to
// 999 and leaves other figures alone.
func trimZeros(s string) string {
	if strings.ContainsAny(s, "e") {
		var f float64
		fmt.Sscan(s, &f)
		return fmt.Sprintf("%.0f", f)
	}
	return s
}

// escapeAll escapes each of ss.
func escapeAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = escape(s)
	}
	return out
}

// printableAll is printable of each of ss; line breaks stay, as CSV quotes them.
func printableAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = printable(s)
	}
	return out
}
