package main

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// spread is (max-min)/median, as a percentage.
func spread(xs []float64) string {
	m := median(xs)
	if len(xs) < 2 || m == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*(slices.Max(xs)-slices.Min(xs))/m)
}

// ratio prints a/b as "1.23x", or N/A when it cannot be computed.
func ratio(a, b float64) string {
	r := a / b
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "N/A"
	}
	return fmt.Sprintf("%.2fx", r)
}

// ranks gives each value its rank from 1, ties the mean of their ranks.
func ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return xs[idx[a]] < xs[idx[b]] })
	r := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && xs[idx[j+1]] == xs[idx[i]] {
			j++
		}
		mean := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = mean
		}
		i = j + 1
	}
	return r
}

// spearman is Spearman's rank correlation of x and y: the Pearson
// correlation of their ranks, which handles ties.
func spearman(x, y []float64) float64 {
	if len(x) != len(y) || len(x) < 2 {
		return math.NaN()
	}
	return pearson(ranks(x), ranks(y))
}

func pearson(x, y []float64) float64 {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= n
	my /= n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	return sxy / math.Sqrt(sxx*syy)
}
