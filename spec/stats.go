package spec

import (
	"slices"
	"strings"

	"github.com/specrun/specrun/metric"
)

// recorded says whether an assert may read name of a benchmark that
// records metrics: one of them (its median over the runs), or one of them
// with a stat's suffix (requests_per_sec_first, ns_per_op_cv).
func recorded(metrics []string, name string) bool {
	if slices.Contains(metrics, name) {
		return true
	}
	base, _, ok := metric.SplitStat(name)
	return ok && slices.Contains(metrics, base)
}

// statNames are metrics and every stat of each, the names an assert may
// read of a benchmark that records them.
func statNames(metrics []string) []string {
	out := slices.Clone(metrics)
	for _, m := range metrics {
		for _, s := range metric.Stats {
			out = append(out, m+"_"+string(s))
		}
	}
	return out
}

// statSuffixes lists the stats as the suffixes they are: "_first, _last,
// ... or _digits".
func statSuffixes() string {
	var b strings.Builder
	for i, s := range metric.Stats {
		switch {
		case i == len(metric.Stats)-1:
			b.WriteString(" or ")
		case i > 0:
			b.WriteString(", ")
		}
		b.WriteString("_" + string(s))
	}
	return b.String()
}
