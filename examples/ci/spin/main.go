// Command spin is a CPU-bound program for the CI gate examples: it runs a
// fixed amount of arithmetic and exits, so that its wall time is its work.
// -slower adds a percentage of work, to play a regression.
//
//	spin -work 30000000 -slower 10
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
)

// slowerByDefault is -slower's default, set at build time with -X.
var slowerByDefault = "0"

func main() {
	work := flag.Int64("work", 30_000_000, "iterations of the arithmetic loop")
	def, err := strconv.ParseFloat(slowerByDefault, 64)
	if err != nil {
		fmt.Fprintf(os.Stderr, "spin: built with -X main.slowerByDefault=%q, not a number\n", slowerByDefault)
		os.Exit(2)
	}
	slower := flag.Float64("slower", def, "run this many `PERCENT` more iterations")
	flag.Parse()
	if *work < 0 || *slower < 0 || *slower > 10000 {
		fmt.Fprintln(os.Stderr, "spin: -work and -slower must be positive; -slower at most 10000")
		os.Exit(2)
	}
	n := *work + int64(float64(*work)**slower/100)
	x := uint64(88172645463325252)
	for range n {
		x ^= x << 13 // xorshift64: no memory traffic, no allocation
		x ^= x >> 7
		x ^= x << 17
	}
	if x == 0 { // never: keeps the loop from being optimised away
		fmt.Println(x)
	}
}
