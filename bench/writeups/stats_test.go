package main

import (
	"math"
	"testing"
)

func TestSpearman(t *testing.T) {
	cases := []struct {
		x, y []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1},
		{[]float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}, -1},
		// 1 - 6*sum(d^2)/(n(n^2-1)) with d = (0, 0, 1, -1, 0): 1 - 12/120
		{[]float64{1, 2, 3, 4, 5}, []float64{1, 2, 4, 3, 5}, 0.9},
		// ties take the mean rank: ranks (1.5, 1.5, 3) and (1, 2, 3)
		{[]float64{7, 7, 9}, []float64{1, 2, 3}, math.Sqrt(3) / 2},
	}
	for _, c := range cases {
		if got := spearman(c.x, c.y); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("spearman(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
	if got := spearman([]float64{1}, []float64{2}); !math.IsNaN(got) {
		t.Errorf("one point: %v, want NaN", got)
	}
}
