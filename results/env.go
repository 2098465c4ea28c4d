package results

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// CaptureEnvironment describes this machine and build. version is specrun's
// own version, which only the command knows. Figures that the system does
// not expose stay empty. The warnings are the conditions known to distort
// timings (frequency scaling, turbo, a virtual machine), for Result.Warnings.
func CaptureEnvironment(version string) (Environment, []string) {
	e := Environment{
		OS:             runtime.GOOS,
		Arch:           runtime.GOARCH, // the build's, so a GOARCH=386 binary records 386
		CPUCount:       runtime.NumCPU(),
		GoVersion:      runtime.Version(),
		SpecrunVersion: version,
		GOMAXPROCS:     runtime.GOMAXPROCS(0),
	}
	e.Hostname, _ = os.Hostname()
	e.Kernel = kernelRelease()
	cpuinfo, _ := os.ReadFile("/proc/cpuinfo")
	e.CPUModel = cpuModel(cpuinfo)
	e.MemoryBytes = memTotal()
	e.Governor = readLine("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
	e.VM = detectVM(cpuinfo, readLine("/sys/class/dmi/id/sys_vendor"), readLine("/sys/class/dmi/id/product_name"))

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

// cpuModel reads the first processor's model from /proc/cpuinfo ("model
// name" on x86, "Model" or "cpu model" elsewhere).
func cpuModel(cpuinfo []byte) string {
	for _, key := range []string{"model name", "Model", "cpu model", "Processor"} {
		if v := cpuinfoField(cpuinfo, key); v != "" {
			return v
		}
	}
	return ""
}

func cpuinfoField(cpuinfo []byte, key string) string {
	sc := bufio.NewScanner(bytes.NewReader(cpuinfo))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func memTotal() int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

// detectVM names the hypervisor when the firmware or the CPU flags admit
// to one, and returns "" on bare metal or when Linux does not say.
func detectVM(cpuinfo []byte, vendor, product string) string {
	for _, known := range []string{"KVM", "QEMU", "VMware", "VirtualBox", "Xen", "Microsoft Corporation", "Amazon EC2", "Google", "Parallels", "Bochs", "OpenStack", "DigitalOcean", "Hetzner"} {
		if strings.Contains(vendor, known) || strings.Contains(product, known) {
			return strings.TrimSpace(vendor + " " + product)
		}
	}
	for _, flag := range strings.Fields(cpuinfoField(cpuinfo, "flags")) {
		if flag == "hypervisor" {
			return "hypervisor flag set"
		}
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
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, false
	}
	var busy float64
	for i, s := range f[1:] {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, false
		}
		// idle and iowait (columns 4 and 5); guest time is already in user.
		if i == 3 || i == 4 || i >= 8 {
			continue
		}
		busy += v
	}
	const userHZ = 100 // the kernel's USER_HZ, fixed at 100 on every Linux architecture
	return busy / userHZ, true
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
