package param

import (
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr string
	}{
		{"16B", 16, ""},
		{"16", 16, ""},
		{"0", 0, ""},
		{"1KB", 1024, ""},
		{"1kb", 1024, ""},
		{"4KiB", 4096, ""},
		{"1MB", 1 << 20, ""},
		{"16MiB", 16 << 20, ""},
		{"2GB", 2 << 30, ""},
		{"1TiB", 1 << 40, ""},
		{"1.5KB", 1536, ""},
		{" 8 MB ", 8 << 20, ""},
		{"5.9KB", 0, "not a whole number"},
		{"16QB", 0, "unknown unit \"QB\""},
		{"-1MB", 0, "negative"},
		{"", 0, "does not start with a number"},
		{"MB", 0, "does not start with a number"},
		{"1.2.3KB", 0, "malformed"},
		{".", 0, "malformed"},
		{"1e3", 0, "unknown unit"},
		{"9999999TB", 0, "too large"},
		{"9223372036854775808", 0, "too large"},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseSize(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestSizeFromFloat(t *testing.T) {
	for _, f := range []float64{-1, 1.5, 1e30} {
		if _, err := SizeFromFloat(f); err == nil {
			t.Errorf("SizeFromFloat(%v) succeeded", f)
		}
	}
	if n, err := SizeFromFloat(1e8); err != nil || n != 100000000 {
		t.Errorf("SizeFromFloat(1e8) = %d, %v", n, err)
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0B", 16: "16B", 1024: "1KB", 1536: "1536B", 16 << 20: "16MB", 3 << 30: "3GB", 1 << 40: "1TB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestParseDuration(t *testing.T) {
	if d, err := ParseDuration("300us"); err != nil || d != 300*time.Microsecond {
		t.Errorf("ParseDuration(300us) = %v, %v", d, err)
	}
	for _, s := range []string{"-1s", "10", "1 week", ""} {
		if _, err := ParseDuration(s); err == nil {
			t.Errorf("ParseDuration(%q) succeeded", s)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"16B", "1MB", "16MiB", "1.5KB", "5.9KB", "16QB", "-1", "9223372036854775807", "0.0000001TB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d, negative", s, n)
		}
		if back, err := ParseSize(FormatSize(n)); err != nil || back != n {
			t.Fatalf("round trip of %d through %q gave %d, %v", n, FormatSize(n), back, err)
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"300us", "1m30s", "-1s", "0", "1h", "9999999h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err == nil && d < 0 {
			t.Fatalf("ParseDuration(%q) = %v, negative", s, d)
		}
	})
}
