package results

import "encoding/json"

// SchemaV1 is the schema of results written before intervals said what
// they are. Decode reads such a result and upgrades it to Schema.
const SchemaV1 = "specrun.results/v1"

// v1Result holds what a v1 result names differently from v2: every
// summary's interval was "ci95_low".."ci95_high", whatever its level, and
// an assertion's bootstrap interval likewise.
type v1Result struct {
	Benchmarks []struct {
		NsPerOp v1Summary            `json:"ns_per_op"`
		Metrics map[string]v1Summary `json:"metrics"`
	} `json:"benchmarks"`
	Assertions []struct {
		Low  *float64 `json:"ci95_low"`
		High *float64 `json:"ci95_high"`
	} `json:"assertions"`
}

type v1Summary struct {
	Low  float64 `json:"ci95_low"`
	High float64 `json:"ci95_high"`
}

// upgradeV1 fills in r, decoded from the v1 document data, what v2 says
// and v1 did not: each interval's kind and actual level, known from the
// number of runs, as Summarize makes them, and the warning Summarize gives
// too few runs.
func upgradeV1(data []byte, r *Result) error {
	var old v1Result
	if err := json.Unmarshal(data, &old); err != nil {
		return describeJSONError(data, err)
	}
	for i := range r.Benchmarks {
		b := &r.Benchmarks[i]
		n := len(b.Runs)
		if n == 0 {
			continue
		}
		b.NsPerOp = upgradeSummary(b.NsPerOp, old.Benchmarks[i].NsPerOp, n)
		for name, s := range b.Metrics {
			b.Metrics[name] = upgradeSummary(s, old.Benchmarks[i].Metrics[name], n)
		}
	}
	for i := range r.Assertions {
		if lo, hi := old.Assertions[i].Low, old.Assertions[i].High; lo != nil && hi != nil {
			r.Assertions[i].Interval = &Interval{Low: *lo, High: *hi, Confidence: Confidence, Kind: Bootstrap}
		}
	}
	r.Schema = Schema
	return nil
}

// upgradeSummary gives a v1 summary of n runs its interval: the order
// statistics' when n runs are enough for one, else min..max.
func upgradeSummary(s Summary, old v1Summary, n int) Summary {
	if ci, ok := medianCI(n); ok {
		s.Interval = Interval{Low: old.Low, High: old.High, Confidence: ci.Confidence, Kind: MedianCI}
		return s
	}
	// The v1 writer replaced a missing interval by min..max; Summarize of as
	// many runs gives the same interval and warning.
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i)
	}
	w := Summarize(xs)
	s.Interval = rangeInterval(old.Low, old.High, n)
	s.Warnings = w.Warnings
	return s
}
