// Package sysinfo describes the machine a run happens on, for the result's
// environment, and watches the load other processes put on it while the
// run goes on. It reads Linux's /proc through internal/procfs; elsewhere
// the figures the system does not expose stay empty.
package sysinfo

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/specrun/specrun/internal/procfs"
	"github.com/specrun/specrun/results"
)

// CaptureEnvironment describes this machine and build. version is specrun's
// own version, which only the command knows. Figures that the system does
// not expose stay empty. The warnings are the conditions known to distort
// timings (frequency scaling, turbo, a virtual machine), for Result.Warnings.
func CaptureEnvironment(version string) (results.Environment, []string) {
	e := results.Environment{
		OS:             runtime.GOOS,
		Arch:           runtime.GOARCH, // the build's, so a GOARCH=386 binary records 386
		CPUCount:       runtime.NumCPU(),
		GoVersion:      runtime.Version(),
		SpecrunVersion: version,
		GOMAXPROCS:     runtime.GOMAXPROCS(0),
	}
	e.Hostname, _ = os.Hostname()
	e.Kernel = kernelRelease()
	cpu, _ := procfs.CPUInfo()
	e.CPUModel = cpu.Model
	mem, _ := procfs.MemInfo()
	e.MemoryBytes = mem.Total
	e.Governor = readLine("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
	e.VM = detectVM(cpu.Flags, readLine("/sys/class/dmi/id/sys_vendor"), readLine("/sys/class/dmi/id/product_name"))

	var warnings []string
	if e.Governor != "" && e.Governor != "performance" {
		warnings = append(warnings, fmt.Sprintf("CPU frequency governor is %q, not \"performance\": timings vary with the clock", e.Governor))
	}
	if turboOn() {
		warnings = append(warnings, "CPU turbo boost is on: timings depend on temperature and load")
	}
	if e.VM != "" {
		warnings = append(warnings, fmt.Sprintf("running in a virtual machine (%s): timings include the hypervisor's noise", e.VM))
	}
	return e, warnings
}

// kernelRelease is uname's release, "6.1.0-18-amd64", where Linux exposes it.
func kernelRelease() string { return readLine("/proc/sys/kernel/osrelease") }

// detectVM names the hypervisor when the firmware or the CPU flags admit
// to one, and returns "" on bare metal or when Linux does not say.
func detectVM(flags []string, vendor, product string) string {
	for _, known := range []string{"KVM", "QEMU", "VMware", "VirtualBox", "Xen", "Microsoft Corporation", "Amazon EC2", "Google", "Parallels", "Bochs", "OpenStack", "DigitalOcean", "Hetzner"} {
		if strings.Contains(vendor, known) || strings.Contains(product, known) {
			return strings.TrimSpace(vendor + " " + product)
		}
	}
	if slices.Contains(flags, "hypervisor") {
		return "hypervisor flag set"
	}
	return ""
}

func turboOn() bool {
	if s := readLine("/sys/devices/system/cpu/intel_pstate/no_turbo"); s != "" {
		return s == "0"
	}
	return readLine("/sys/devices/system/cpu/cpufreq/boost") == "1"
}

func readLine(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// LoadWatch measures how much CPU other processes used while a run was
// going on: the system's busy time from /proc/stat less this process's
// own (and its waited-for children's) CPU time.
type LoadWatch struct {
	start    time.Time
	busy     float64 // system CPU seconds
	own      float64 // this process's CPU seconds
	ok       bool
	MaxShare float64 // a share of one CPU above which Stop warns; 0 means 0.25
}

// WatchLoad starts a LoadWatch. Where /proc/stat is missing it watches
// nothing and Stop returns no warning.
func WatchLoad() *LoadWatch {
	w := &LoadWatch{start: time.Now()}
	w.busy, w.ok = systemBusy()
	w.own = ownCPU()
	return w
}

// Stop returns a warning when other processes kept, on average, more than
// MaxShare of a CPU busy since WatchLoad.
func (w *LoadWatch) Stop() []string {
	busy, ok := systemBusy()
	if !w.ok || !ok {
		return nil
	}
	// /proc/stat counts in 10 ms ticks: over less than a second, a tick or
	// two of rounding would read as load.
	wall := time.Since(w.start).Seconds()
	if wall < 1 {
		return nil
	}
	others := (busy - w.busy) - (ownCPU() - w.own)
	share := others / wall
	limit := w.MaxShare
	if limit == 0 {
		limit = 0.25
	}
	if share <= limit {
		return nil
	}
	return []string{fmt.Sprintf("other processes kept %.2f CPUs busy on average during the run (of %d): timings may be disturbed", share, runtime.NumCPU())}
}

// systemBusy is the CPU time, in seconds, that all CPUs spent not idle.
func systemBusy() (float64, bool) {
	busy, err := procfs.SystemBusy()
	return busy.Seconds(), err == nil
}

func ownCPU() float64 {
	var total float64
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
		}
	}
	return total
}
