// Command checkcost writes a result with many runs per instance, for timing
// `specrun check` on it: the bootstrap behind every verdict must stay cheap
// however many runs a result holds.
//
//	go run ./bench/checkcost -runs 20000 -o /tmp/big.json
//	time specrun check /tmp/big.json
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/specrun/specrun/results"
)

const specText = `suite "checkcost" {}

benchmark "noop" {
  op = "noop"
}
benchmark "int_div" {
  op = "int.div"
}
assert "div_over_noop" {
  value = benchmark.int_div.ns_per_op / benchmark.noop.ns_per_op
  min   = 2
}
assert "div_under_noop" {
  value = benchmark.int_div.ns_per_op / benchmark.noop.ns_per_op
  max   = 2
}
`

func main() {
	runs := flag.Int("runs", 20000, "runs per instance")
	out := flag.String("o", "checkcost.json", "the result `FILE` to write")
	flag.Parse()
	if err := write(*out, *runs); err != nil {
		fmt.Fprintf(os.Stderr, "checkcost: %v\n", err)
		os.Exit(1)
	}
}

func write(path string, n int) error {
	rng := rand.New(rand.NewPCG(1, 2))
	started := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	r := &results.Result{
		Schema:     results.Schema,
		Suite:      results.Suite{Name: "checkcost"},
		Label:      "big",
		Spec:       results.Spec{Paths: []string{"checkcost.hcl"}, Files: map[string]string{"checkcost.hcl": specText}},
		StartedAt:  started,
		FinishedAt: started.Add(time.Hour),
		Assertions: []results.Assertion{},
	}
	for _, b := range []struct {
		name, op string
		ns       float64
	}{{"noop", "noop", 1}, {"int_div", "int.div", 2.4}} {
		bm := results.Benchmark{Name: b.name, Benchmark: b.name, Op: b.op, Params: map[string]any{}, Iterations: 1e6}
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = b.ns * (1 + 0.02*rng.NormFloat64())
			bm.Runs = append(bm.Runs, results.Run{Iterations: 1e6, TotalNs: int64(xs[i] * 1e6), NsPerOp: xs[i],
				Metrics: map[string]float64{"ops_per_sec": 1e9 / xs[i]}})
		}
		bm.NsPerOp = results.Summarize(xs)
		r.Benchmarks = append(r.Benchmarks, bm)
	}
	return results.WriteFile(path, r, true)
}
