package servers

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"

	"github.com/specrun/specrun/internal/procfs"
)

// localPort is the TCP port a ready URL reaches, when it reaches this
// machine (a loopback address or "localhost"): only then can /proc tell
// who listens on it.
func localPort(rawURL string) (int, bool) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return 0, false
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		switch u.Scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		default:
			return 0, false
		}
	}
	if ip := net.ParseIP(host); !(host == "localhost" || ip != nil && ip.IsLoopback()) {
		return 0, false
	}
	n, err := strconv.Atoi(port)
	return n, err == nil && n > 0 && n < 65536
}

// portFree fails when a process already listens on port: a server started
// now could not listen there, and its readiness poll would reach the other
// process (a server an earlier, killed run left behind).
func portFree(port int) error {
	inodes, err := procfs.Listeners(port)
	if err != nil || len(inodes) == 0 {
		return nil // unknown where /proc cannot tell; the ownership check still runs
	}
	return fmt.Errorf("port %d is already in use%s, before the server started", port, ownerNote(inodes))
}

// listensInGroup reports whether a process in members holds a socket
// listening on port.
func listensInGroup(port int, members []int) (bool, error) {
	inodes, err := procfs.Listeners(port)
	if err != nil {
		return false, err
	}
	for _, pid := range members {
		socks, err := procfs.Sockets(pid)
		if err != nil {
			continue // exited meanwhile
		}
		for _, s := range socks {
			if slices.Contains(inodes, s) {
				return true, nil
			}
		}
	}
	return false, nil
}

// ownerNote names the process that holds one of the socket inodes, for a
// message: " by pid 123 (python3)".
func ownerNote(inodes []uint64) string {
	for _, pid := range procfs.Members(func(procfs.Proc) bool { return true }) {
		socks, err := procfs.Sockets(pid)
		if err != nil {
			continue
		}
		for _, s := range socks {
			if slices.Contains(inodes, s) {
				if p, err := procfs.Stat(pid); err == nil {
					return fmt.Sprintf(" by pid %d (%s)", pid, p.Comm)
				}
				return fmt.Sprintf(" by pid %d", pid)
			}
		}
	}
	return ""
}
