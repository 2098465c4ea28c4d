package sysinfo

import (
	"runtime"
	"testing"
)

func TestDetectVM(t *testing.T) {
	for _, tc := range []struct {
		flags           []string
		vendor, product string
		want            string
	}{
		{nil, "QEMU", "Standard PC (Q35 + ICH9, 2009)", "QEMU Standard PC (Q35 + ICH9, 2009)"},
		{[]string{"fpu", "hypervisor"}, "", "", "hypervisor flag set"},
		{[]string{"fpu", "sse2"}, "Dell Inc.", "PowerEdge R640", ""},
	} {
		if got := detectVM(tc.flags, tc.vendor, tc.product); got != tc.want {
			t.Errorf("detectVM(%v, %q, %q) = %q, want %q", tc.flags, tc.vendor, tc.product, got, tc.want)
		}
	}
}

func TestCaptureEnvironment(t *testing.T) {
	e, _ := CaptureEnvironment("v1.2.3")
	if e.OS != runtime.GOOS || e.Arch != runtime.GOARCH || e.CPUCount < 1 || e.SpecrunVersion != "v1.2.3" {
		t.Errorf("CaptureEnvironment = %+v", e)
	}
	if runtime.GOOS == "linux" && (e.CPUModel == "" || e.MemoryBytes <= 0) {
		t.Errorf("on Linux the CPU model and memory come from /proc: %+v", e)
	}
}
