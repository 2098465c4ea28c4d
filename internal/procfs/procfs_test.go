//go:build linux

package procfs

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// statLine is a /proc/PID/stat line with the fields specrun reads set and
// the rest zero.
func statLine(pid int, comm, state string, ppid, pgrp int, utime, stime, rss int) string {
	f := []string{strconv.Itoa(pid), "(" + comm + ")", state, strconv.Itoa(ppid), strconv.Itoa(pgrp)}
	for i := 6; i <= 52; i++ {
		v := "0"
		switch i {
		case 14:
			v = strconv.Itoa(utime)
		case 15:
			v = strconv.Itoa(stime)
		case 20:
			v = "1" // threads
		case 24:
			v = strconv.Itoa(rss)
		}
		f = append(f, v)
	}
	s := ""
	for i, v := range f {
		if i > 0 {
			s += " "
		}
		s += v
	}
	return s + "\n"
}

func fixture(t *testing.T, files map[string]string) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := root
	root = dir
	t.Cleanup(func() { root = old })
}

func TestStatFixture(t *testing.T) {
	fixture(t, map[string]string{
		"10/stat":   statLine(10, "a) (b c", "S", 1, 7, 250, 50, 3),
		"10/status": "Name:\tx\nVmPeak:\t  9000 kB\nVmHWM:\t    1234 kB\nVmRSS:\t  1000 kB\n",
	})
	if hwm, err := HWM(10); err != nil || hwm != 1234<<10 {
		t.Errorf("HWM = %d, %v; want %d", hwm, err, 1234<<10)
	}
	p, err := Stat(10)
	if err != nil {
		t.Fatal(err)
	}
	want := Proc{PID: 10, PPID: 1, PGRP: 7, State: "S", Comm: "a) (b c",
		User: 2500 * time.Millisecond, Sys: 500 * time.Millisecond, RSS: 3 * pageSize, Threads: 1}
	if p != want {
		t.Errorf("Stat = %+v, want %+v", p, want)
	}
	if p.CPU() != 3*time.Second {
		t.Errorf("CPU = %v, want 3s", p.CPU())
	}
	if _, err := Stat(11); err == nil {
		t.Error("Stat of a missing pid: no error")
	}
}

func TestGroupMembersFixture(t *testing.T) {
	fixture(t, map[string]string{
		"10/stat":  statLine(10, "leader", "S", 1, 10, 0, 0, 0),
		"11/stat":  statLine(11, "child", "R", 10, 10, 0, 0, 0),
		"12/stat":  statLine(12, "zombie", "Z", 10, 10, 0, 0, 0),
		"13/stat":  statLine(13, "other", "S", 11, 99, 0, 0, 0),
		"self/x":   "not a pid",
		"14/stat":  "garbage", // a process that is hard to read is not a member
		"meminfo":  "MemTotal:  1000 kB\nMemFree:  200 kB\nMemAvailable:  600 kB\n",
		"net/tcp":  tcpHeader + tcpRow("0100007F", 8080, 0x0A, 555) + tcpRow("0100007F", 8080, 0x01, 556) + tcpRow("0100007F", 9090, 0x0A, 557),
		"net/tcp6": tcpHeader + tcpRow("00000000000000000000000001000000", 8080, 0x0A, 558),
		"stat":     "cpu  100 20 30 1000 50 5 5 10 0 0\ncpu0 100 20 30 1000 50 5 5 10 0 0\n",
	})
	if got := GroupMembers(10); !slices.Equal(got, []int{10, 11}) {
		t.Errorf("GroupMembers(10) = %v, want [10 11] (no zombie, no other group)", got)
	}
	if got := Children(10); !slices.Equal(got, []int{11}) {
		t.Errorf("Children(10) = %v, want [11]", got)
	}
	m, err := MemInfo()
	if err != nil || m != (Memory{Total: 1000 << 10, Available: 600 << 10}) {
		t.Errorf("MemInfo = %+v, %v", m, err)
	}
	l, err := Listeners(8080)
	if err != nil || !slices.Equal(l, []uint64{555, 558}) {
		t.Errorf("Listeners(8080) = %v, %v; want [555 558]", l, err)
	}
	busy, err := SystemBusy()
	// user+nice+system+irq+softirq+steal = 100+20+30+5+5+10 ticks
	if err != nil || busy != 1700*time.Millisecond {
		t.Errorf("SystemBusy = %v, %v; want 1.7s", busy, err)
	}
}

const tcpHeader = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"

func tcpRow(addr string, port, state int, inode uint64) string {
	return "   0: " + addr + ":" + strconv.FormatInt(int64(port), 16) + " 00000000:0000 " +
		strconv.FormatInt(int64(state), 16) + " 00000000:00000000 00:00000000 00000000     0        0 " +
		strconv.FormatUint(inode, 10) + " 1 0000000000000000 100 0 0 10 0\n"
}

func TestSelf(t *testing.T) {
	p, err := Stat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if p.PID != os.Getpid() || p.PPID != os.Getppid() || p.PGRP != syscall.Getpgrp() || !p.Alive() || p.RSS <= 0 {
		t.Errorf("Stat(self) = %+v", p)
	}
	hwm, err := HWM(os.Getpid())
	if err != nil || hwm < p.RSS/2 {
		t.Errorf("HWM(self) = %d, %v; RSS %d", hwm, err, p.RSS)
	}
	if err := ResetHWM(os.Getpid()); err != nil {
		t.Logf("ResetHWM: %v (not writable here)", err)
	}
	m, err := MemInfo()
	if err != nil || m.Total <= 0 || m.Available <= 0 || m.Available > m.Total {
		t.Errorf("MemInfo = %+v, %v", m, err)
	}
	if _, err := CPUInfo(); err != nil {
		t.Errorf("CPUInfo: %v", err)
	}
	b0, err := SystemBusy()
	if err != nil || b0 <= 0 {
		t.Errorf("SystemBusy = %v, %v", b0, err)
	}
}

func TestGroupMembersLive(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "sleep 30 & sleep 30; wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	defer func() {
		syscall.Kill(-pgid, syscall.SIGKILL)
		cmd.Wait()
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(GroupMembers(pgid)) < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	got := GroupMembers(pgid)
	if len(got) != 3 || got[0] != pgid {
		t.Fatalf("GroupMembers = %v, want the shell %d and its two sleeps", got, pgid)
	}
	if kids := Children(pgid); len(kids) != 2 {
		t.Errorf("Children(shell) = %v, want two sleeps", kids)
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	cmd.Wait()
	for len(GroupMembers(pgid)) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := GroupMembers(pgid); len(got) != 0 {
		t.Errorf("after KILL: GroupMembers = %v", got)
	}
}

func TestListenerOwner(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	listening, err := Listeners(port)
	if err != nil || len(listening) != 1 {
		t.Fatalf("Listeners(%d) = %v, %v", port, listening, err)
	}
	mine, err := Sockets(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(mine, listening[0]) {
		t.Errorf("socket %d listening on %d is not among this process's %v", listening[0], port, mine)
	}
	ln.Close()
	if l, _ := Listeners(port); len(l) != 0 {
		t.Errorf("after Close: Listeners = %v", l)
	}
}
