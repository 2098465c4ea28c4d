//go:build !linux

package ops

import (
	"context"
	"os"
	"syscall"
	"time"
)

// spawn runs one child to completion. Without Linux's ptrace exit stop the
// peak RSS is rusage's, which includes specrun's own address space.
func spawn(ctx context.Context, s *spawnSpec, trace bool) (childUsage, error) {
	start := time.Now()
	p, err := os.StartProcess(s.path, s.argv, &os.ProcAttr{Dir: s.dir, Env: s.env, Files: s.files})
	if err != nil {
		return childUsage{}, err
	}
	stop := context.AfterFunc(ctx, func() { p.Kill() })
	defer stop()
	st, err := p.Wait()
	if err != nil {
		return childUsage{}, err
	}
	u := childUsage{Wall: time.Since(start), User: st.UserTime(), Sys: st.SystemTime(), ExitCode: st.ExitCode()}
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok && trace {
		u.MaxRSS = int64(ru.Maxrss)
	}
	return u, nil
}
