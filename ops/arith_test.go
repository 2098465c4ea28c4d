package ops

import (
	"context"
	"testing"

	"github.com/specrun/specrun/param"
)

func TestDivisionsIndependentOrChained(t *testing.T) {
	for _, tc := range []struct {
		op        string
		dependent bool
		n         int64
		check     func() bool
	}{
		// Independent: the quotients of 0..n-1 by 7, summed.
		{"int.div", false, 100, func() bool { return sinkInt == sumQuotients(100, 7) }},
		// Chained: x = c / x stays at its start.
		{"int.div", true, 101, func() bool { return sinkInt == chainStart }},
		{"float.div", false, 3, func() bool { return sinkFloat == 1.0/7+2.0/7+3.0/7 }},
		// x = d / x alternates between 3 and d/3.
		{"float.div", true, 101, func() bool { return sinkFloat == floatDivisor/3 }},
		{"float.div", true, 100, func() bool { return sinkFloat == 3 }},
	} {
		sinkInt, sinkFloat = 0, 0
		op := prepare(t, tc.op, param.Values{"dependent": tc.dependent})
		if _, err := op.Run(context.Background(), tc.n); err != nil {
			t.Fatal(err)
		}
		if !tc.check() {
			t.Errorf("%s dependent=%v n=%d: sinks hold %d and %v", tc.op, tc.dependent, tc.n, sinkInt, sinkFloat)
		}
	}
}

func sumQuotients(n, d int64) int64 {
	var s int64
	for i := range n {
		s += i / d
	}
	return s
}
