package results

import (
	"math"
	"slices"
)

// Change is how much a later column differs from the first: the
// Hodges-Lehmann estimate of the ratio of their values, with the
// distribution-free confidence interval that goes with the Mann-Whitney U
// test (Bauer 1972), all as fractions: -0.34 is 34% less.
type Change struct {
	Estimate float64 `json:"estimate"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	// Confidence is the interval's actual level: the one asked for, or
	// with too few runs for it the level of the widest interval there is,
	// from the smallest to the largest ratio of two runs (0.9 for 3 runs
	// against 3).
	Confidence float64 `json:"confidence"`
}

// Significant reports whether the interval leaves out "no change".
func (c Change) Significant() bool { return c.Low > 0 || c.High < 0 }

// ChangeOf estimates the change from the runs old to the runs new at the
// confidence level (0.95, say). The estimate is the median of the ratios
// of every new run to every old one (the Hodges-Lehmann estimator on the
// logarithms), so it is the same whether the runs came from one result or
// were pooled from several. nil when either has no runs or a value that
// is not positive, since a ratio then means nothing.
func ChangeOf(old, new []float64, level float64) *Change {
	n, m := len(old), len(new)
	if n == 0 || m == 0 {
		return nil
	}
	for _, v := range append(slices.Clone(old), new...) {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil
		}
	}
	diffs := make([]float64, 0, n*m)
	for _, x := range old {
		for _, y := range new {
			diffs = append(diffs, math.Log(y)-math.Log(x))
		}
	}
	slices.Sort(diffs)
	N := len(diffs)
	var est float64
	if N%2 == 1 {
		est = diffs[N/2]
	} else {
		est = (diffs[N/2-1] + diffs[N/2]) / 2
	}
	// The interval is [d(k), d(N+1-k)] for the largest k whose tails
	// P(U < k) on either side hold at most 1-level between them.
	k, conf := hlRank(n, m, 1-level)
	lo, hi := diffs[k-1], diffs[N-k]
	return &Change{Estimate: math.Expm1(est), Low: math.Expm1(lo), High: math.Expm1(hi), Confidence: conf}
}

// hlRank is the rank k of the Hodges-Lehmann interval's lower end for
// samples of n and m at significance alpha, and the interval's level
// 1 - 2 P(U <= k-1). The distribution of U is exact up to 400 values in
// all, and the normal approximation beyond.
func hlRank(n, m int, alpha float64) (int, float64) {
	N := n * m
	if n+m > 400 {
		z := normalQuantile(1 - alpha/2)
		k := int(math.Floor(float64(N)/2 - z*math.Sqrt(float64(N*(n+m+1))/12)))
		if k < 1 {
			k = 1
		}
		return k, 1 - alpha
	}
	cdf := uCDF(n, m)
	k := 1
	for k < (N+1)/2 && 2*cdf[k] <= alpha { // cdf[k] is P(U <= k)
		k++
	}
	return k, 1 - 2*cdf[k-1]
}

// uCDF is P(U <= u) for u = 0..n*m, the Mann-Whitney statistic of samples
// of n and m values without ties: the coefficients of the Gaussian
// binomial [n+m choose n] over C(n+m, n).
func uCDF(n, m int) []float64 {
	N := n * m
	c := make([]float64, N+1)
	c[0] = 1
	deg := 0
	// [n+m choose n]_q = prod_{i=1..n} (1 - q^(m+i)) / (1 - q^i).
	for i := 1; i <= n; i++ {
		// Multiply by 1 - q^(m+i).
		for d := deg + m + i; d >= m+i; d-- {
			if d <= N {
				c[d] -= c[d-m-i]
			}
		}
		deg += m
		// Divide by 1 - q^i: each coefficient adds the one i below it.
		for d := i; d <= N; d++ {
			c[d] += c[d-i]
		}
	}
	total := 0.0
	for _, v := range c {
		total += v
	}
	cdf := make([]float64, N+1)
	sum := 0.0
	for u, v := range c {
		sum += v
		cdf[u] = sum / total
	}
	return cdf
}

// normalQuantile is the standard normal quantile of p, by bisection on
// the error function: precise enough for an interval's rank.
func normalQuantile(p float64) float64 {
	lo, hi := -10.0, 10.0
	for i := 0; i < 100; i++ {
		mid := (lo + hi) / 2
		if 0.5*math.Erfc(-mid/math.Sqrt2) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
