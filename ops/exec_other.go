//go:build !linux

package ops

import (
	"context"
	"os"
	"syscall"
	"time"

	"github.com/specrun/specrun/internal/procgroup"
)

// spawn runs one child to completion in its own process group, and kills
// what it leaves in the group. The peak RSS is unknown here.
func spawn(ctx context.Context, s *spawnSpec, g *procgroup.Group) (childUsage, error) {
	start := time.Now()
	p, err := os.StartProcess(s.path, s.argv, &os.ProcAttr{Dir: s.dir, Env: s.env, Files: s.files, Sys: g.SysProcAttr(nil)})
	if err != nil {
		return childUsage{}, err
	}
	g.Add(p.Pid)
	defer g.Remove(p.Pid)
	stop := context.AfterFunc(ctx, func() { syscall.Kill(-p.Pid, syscall.SIGKILL) })
	defer stop()
	st, err := p.Wait()
	if err != nil {
		return childUsage{}, err
	}
	wall := time.Since(start)
	syscall.Kill(-p.Pid, syscall.SIGKILL)
	return childUsage{Wall: wall, User: st.UserTime(), Sys: st.SystemTime(), ExitCode: st.ExitCode()}, nil
}
