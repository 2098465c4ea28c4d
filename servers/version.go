package servers

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/specrun/specrun/spec"
)

// versionTimeout bounds a server's version command: it asks a program what
// it is, which takes a moment, not the run.
const versionTimeout = 10 * time.Second

// Version runs the server's version command in the server's directory and
// environment and returns the first non-empty line it printed, at most 200
// characters; a command that fails gives "unknown (" and why ")".
func Version(ctx context.Context, s *spec.Server) string {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Version[0], s.Version[1:]...)
	cmd.Dir = s.Dir
	cmd.Env = os.Environ()
	for k, v := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second // a child that keeps the pipe open does not hold the run
	err := cmd.Run()
	line := ""
	for _, l := range strings.Split(out.String(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	line = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(line, "?"))
	if utf8.RuneCountInString(line) > 200 {
		line = string([]rune(line)[:200])
	}
	if err != nil {
		if line != "" {
			return "unknown (" + err.Error() + ": " + line + ")"
		}
		return "unknown (" + err.Error() + ")"
	}
	return line
}
