package spec

import (
	"fmt"

	"github.com/agext/levenshtein"
)

// Suggest returns the candidate that given is most likely a typo of (within
// the edit distance HCL uses for attribute names), or "" when none is close.
// Commands use it for names given on the command line.
func Suggest(given string, candidates []string) string {
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
	if s := Suggest(given, candidates); s != "" {
		return fmt.Sprintf(" Did you mean %q?", s)
	}
	return ""
}
