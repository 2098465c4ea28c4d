package main

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/specrun/specrun/ops"
)

// benchEnv gives file ops a temp dir, as specrun's runner does.
type benchEnv struct{ dir string }

func (e benchEnv) TempDir() string { return e.dir }
func (e benchEnv) Server(context.Context, string) (ops.Server, error) {
	return ops.Server{}, errors.New("no servers here")
}

// BenchmarkOps times each case through testing.B with the very code
// specrun runs: the op's own Run(ctx, b.N), prepared outside the timer.
func BenchmarkOps(b *testing.B) {
	for _, c := range cases {
		b.Run(c.Name, func(b *testing.B) {
			def, v, err := c.values()
			if err != nil {
				b.Fatal(err)
			}
			op, err := def.New(v, benchEnv{dir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			if cl, ok := op.(io.Closer); ok {
				defer cl.Close()
			}
			b.ResetTimer()
			if _, err := op.Run(context.Background(), int64(b.N)); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// TestCasesRender keeps the generated spec in step with the cases.
func TestCasesRender(t *testing.T) {
	for _, c := range cases {
		if _, _, err := c.values(); err != nil {
			t.Error(err)
		}
		if c.hcl() == "" {
			t.Errorf("%s: empty block", c.Name)
		}
	}
}
