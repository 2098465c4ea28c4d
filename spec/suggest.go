package spec

import (
	"fmt"

	"github.com/agext/levenshtein"
)

// suggest returns the candidate closest to given, if it is close enough to
// be a likely typo (the same threshold HCL uses for attribute names).
func suggest(given string, candidates []string) string {
	best, bestDist := "", 3
	for _, c := range candidates {
		if d := levenshtein.Distance(given, c, nil); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// didYouMean is " Did you mean "x"?" when a candidate is close, else "".
func didYouMean(given string, candidates []string) string {
	if s := suggest(given, candidates); s != "" {
		return fmt.Sprintf(" Did you mean %q?", s)
	}
	return ""
}

// Suggest returns the candidate that given is most likely a typo of, or
// "" when none is close; commands use it for names given on the command line.
func Suggest(given string, candidates []string) string { return suggest(given, candidates) }
