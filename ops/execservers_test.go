package ops

import (
	"context"
	"slices"
	"testing"

	"github.com/specrun/specrun/param"
)

// TestExecServers: the plan learns which servers an exec instance names,
// in its command, shell, env and setup, through a builtin server's
// placeholder URL or a command server's own URL.
func TestExecServers(t *testing.T) {
	owner := func(url string) (string, bool) {
		if url == "http://127.0.0.1:8081/health" || url == "http://127.0.0.1:8081" {
			return "app", true
		}
		return "", false
	}
	for _, tc := range []struct {
		p    param.Values
		want []string
	}{
		{param.Values{"command": []string{"wrk", "-c10", ServerURLScheme + "nginx/index.html"}}, []string{"nginx"}},
		{param.Values{"shell": "ab -n 10 '" + ServerURLScheme + "b/' && curl " + ServerURLScheme + "ab:x"}, []string{"b", "ab"}},
		{param.Values{"command": []string{"client"}, "env": map[string]string{"TARGET": ServerURLScheme + "db"}}, []string{"db"}},
		{param.Values{"command": []string{"true"}, "setup": "curl -s http://127.0.0.1:8081/health"}, []string{"app"}},
		{param.Values{"command": []string{"true"}}, nil},
	} {
		if got := execServers(tc.p, owner); !slices.Equal(got, tc.want) {
			t.Errorf("execServers(%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
}

// TestExecGetsServerURLs: each placeholder is the started server's base
// URL by the time the command runs, a longer name never rewritten by a
// shorter one's.
func TestExecGetsServerURLs(t *testing.T) {
	env := plannedEnv{fakeEnv{
		"a":  {Name: "a", URL: "http://127.0.0.1:1111/"},
		"ab": {Name: "ab", URL: "http://127.0.0.1:2222"},
	}, []string{"a", "ab"}}
	p := param.Values{
		"command": []string{"/bin/sh", "-c", `test "$0 $1 $T" = "http://127.0.0.1:1111/x http://127.0.0.1:2222 http://127.0.0.1:2222/y"`,
			ServerURLScheme + "a/x", ServerURLScheme + "ab"},
		"env": map[string]string{"T": ServerURLScheme + "ab/y"},
	}
	op, err := newExec(p, env)
	if err != nil {
		t.Fatal(err)
	}
	defer op.(interface{ Close() error }).Close()
	if _, err := op.Run(context.Background(), 1); err != nil {
		t.Fatalf("the command did not get the servers' URLs: %v", err)
	}

	// A server that cannot start is the benchmark's error.
	if _, err := newExec(param.Values{"command": []string{"true", ServerURLScheme + "gone"}}, plannedEnv{fakeEnv{}, []string{"gone"}}); err == nil {
		t.Error("a server that did not start: no error")
	}
}
