package param

import "testing"

func TestParseFraction(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"5%", 0.05, true},
		{" 2.5 % ", 0.025, true},
		{"0.05", 0.05, true},
		{"0", 0, true},
		{"100%", 0, false},
		{"1", 0, false},
		{"-1%", 0, false},
		{"NaN", 0, false},
		{"five", 0, false},
		{"", 0, false},
	} {
		got, err := ParseFraction(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("ParseFraction(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
