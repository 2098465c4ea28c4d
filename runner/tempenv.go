package runner

import (
	"context"
	"fmt"
	"os"

	"github.com/specrun/specrun/ops"
)

// tempEnv is the Resources of a run without servers: a private temp dir.
type tempEnv struct{ dir string }

func newTempEnv() (*tempEnv, error) {
	dir, err := os.MkdirTemp("", "specrun-")
	if err != nil {
		return nil, fmt.Errorf("create temp dir: %w", err)
	}
	return &tempEnv{dir: dir}, nil
}

func (e *tempEnv) TempDir() string { return e.dir }

func (e *tempEnv) Server(_ context.Context, name string) (ops.Server, error) {
	return ops.Server{}, fmt.Errorf("server %q: this run starts no servers", name)
}

func (e *tempEnv) StopServer(string) error { return nil }

func (e *tempEnv) remove() { os.RemoveAll(e.dir) }

var _ Resources = (*tempEnv)(nil)
