package main

import (
	"errors"
	"strings"
	"testing"
)

// TestMissingToolsSkipWithTheReason: with nothing on PATH, the
// reproductions that need a tool are skipped, naming it, before they run
// anything. (classic needs none: without gcc it leaves out the C column.)
func TestMissingToolsSkipWithTheReason(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	e := &env{repo: root, tmp: t.TempDir(), scale: 1, rounds: 1}
	for name, run := range map[string]func(*env) error{"timers": timers, "interpreters": interpreters} {
		err := run(e)
		var skip errSkip
		if !errors.As(err, &skip) {
			t.Errorf("%s: %v, want a skip", name, err)
			continue
		}
		want := map[string]string{"timers": "gcc", "interpreters": "memcached"}[name]
		if !strings.Contains(skip.reason, want) {
			t.Errorf("%s: skipped for %q, want the reason to name %s", name, skip.reason, want)
		}
	}
}
