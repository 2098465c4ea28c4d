package main

import (
	"os"
	"strings"
	"testing"
)

const abOutput = `This is ApacheBench, Version 2.3 <$Revision: 1903618 $>

Benchmarking 127.0.0.1 (be patient)
Server Software:        waitress
Server Hostname:        127.0.0.1
Server Port:            8093

Document Path:          /
Document Length:        5899 bytes

Concurrency Level:      10
Time taken for tests:   1.141 seconds
Complete requests:      1000
Failed requests:        3
   (Connect: 0, Receive: 0, Length: 3, Exceptions: 0)
Total transferred:      6039000 bytes
HTML transferred:       5899000 bytes
Requests per second:    876.23 [#/sec] (mean)
Time per request:       11.413 [ms] (mean)
Transfer rate:          5167.50 [Kbytes/sec] received
`

func TestParseAB(t *testing.T) {
	p, err := parseAB([]byte(abOutput))
	if err != nil {
		t.Fatal(err)
	}
	want := phase{rps: 876.23, total: 6039000, html: 5899000, failed: 3}
	if p != want {
		t.Errorf("parseAB = %+v, want %+v", p, want)
	}
	if _, err := parseAB([]byte("apr_socket_recv: Connection refused (111)\n")); err == nil {
		t.Error("ab's error output: no error")
	}
	if got := abSummary(abOutput); !strings.HasPrefix(got, "Concurrency Level:") || !strings.HasSuffix(got, "received\n") {
		t.Errorf("abSummary = %q", got)
	}
}

func TestProcFigures(t *testing.T) {
	pid := os.Getpid()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	ticks, err := cpuTicks(pid)
	if err != nil || ticks < 0 {
		t.Errorf("cpuTicks = %d, %v", ticks, err)
	}
	hwm, err := vmHWM(pid)
	if err != nil || hwm < 1<<20 {
		t.Errorf("vmHWM = %v, %v; a Go test binary holds more than 1 MiB", hwm, err)
	}
}
