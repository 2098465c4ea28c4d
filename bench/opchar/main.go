// Command opchar prints the operating characteristics of repeat = "auto"
// against a stored baseline, by simulation: for each op of
// opchar.Scenarios and each slowdown, the share of gates that fail and
// pass, and the runs the gated run took (median and 95th percentile).
//
//	go run ./bench/opchar -gates 1000
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/specrun/specrun/internal/opchar"
)

func main() {
	gates := flag.Int("gates", 1000, "simulated gates per row")
	max := flag.Float64("max", 1.05, "the gate's bound on current / baseline")
	threshold := flag.Float64("threshold", 0, "the gate's noise threshold")
	seed := flag.Uint64("seed", 1, "seed of the simulation")
	flag.Parse()

	g := opchar.Gate{Max: *max, Threshold: *threshold}
	type job struct {
		s        opchar.Scenario
		slowdown float64
	}
	var jobs []job
	for _, s := range opchar.Scenarios() {
		for _, d := range []float64{0, 0.05, 0.10, 0.50} {
			jobs = append(jobs, job{s, d})
		}
	}
	rows := make([]opchar.Row, len(jobs))
	start := time.Now()
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			rows[i] = opchar.Simulate(j.s, g, j.slowdown, *gates, *seed)
		}()
	}
	wg.Wait()
	fmt.Printf("gate: current / baseline <= %v, threshold %v; repeat = \"auto\" defaults (looks %v, %d gates a row)\n\n",
		*max, *threshold, g.Rule.Looks(), *gates)
	fmt.Println("| op | slowdown | gates | fail | pass | median runs | p95 runs |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Println(r)
	}
	fmt.Fprintf(os.Stderr, "simulated in %v\n", time.Since(start).Round(time.Second))
}
