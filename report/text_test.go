package report

import "testing"

// TestNanoseconds: the classic table's Time per (ns) has one decimal from
// 1 ns up and two significant digits below, and a figure that rounds up
// to 1 reads as those above it do.
func TestNanoseconds(t *testing.T) {
	for _, tc := range []struct {
		ns   float64
		want string
	}{
		{0, "0.0"},
		{0.7, "0.7"},
		{0.314, "0.31"},
		{0.994, "0.99"},
		{0.996, "1.0"},
		{-0.996, "-1.0"},
		{1, "1.0"},
		{2.44, "2.4"},
		{1179115.74, "1179115.7"},
	} {
		if got := nanoseconds(tc.ns); got != tc.want {
			t.Errorf("nanoseconds(%v) = %q, want %q", tc.ns, got, tc.want)
		}
	}
}
