package ops

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/specrun/specrun/param"
)

// catalogEnv lends ops a per-test temp dir and no servers.
type catalogEnv struct{ dir string }

func (e catalogEnv) TempDir() string        { return e.dir }
func (catalogEnv) Servers() []string        { return nil }
func (catalogEnv) Context() context.Context { return context.Background() }
func (e catalogEnv) Server(context.Context, string) (Server, error) {
	return Server{}, errors.New("no servers in unit tests")
}

// withDefaults returns def's parameter defaults overlaid with set.
func withDefaults(def *Def, set param.Values) param.Values {
	v := param.Values{}
	for _, p := range def.Params {
		if p.Default != nil {
			v[p.Name] = p.Default
		}
	}
	for k, x := range set {
		v[k] = x
	}
	return v
}

// prepare makes op name with set over its defaults, closing it when the
// test ends.
func prepare(t *testing.T, name string, set param.Values) Op {
	t.Helper()
	op, err := newOp(name, set, catalogEnv{dir: t.TempDir()})
	if err != nil {
		t.Fatalf("prepare %s: %v", name, err)
	}
	t.Cleanup(func() { closeOp(t, op) })
	return op
}

func newOp(name string, set param.Values, env Env) (Op, error) {
	def, ok := Lookup(name)
	if !ok {
		return nil, errors.New("no op " + name)
	}
	op, err := def.New(withDefaults(def, set), env)
	if err != nil {
		return nil, err
	}
	return op, nil
}

func closeOp(t *testing.T, op Op) {
	t.Helper()
	if c, ok := op.(interface{ Close() error }); ok {
		if err := c.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}
}

// catalog is every op of the classic tables, with the iterations a unit
// test runs: enough to go round the loop, never enough to time anything.
var catalog = map[string]int64{
	"noop": 1000, "call.direct": 1000, "call.func_value": 1000, "call.interface": 1000, "call.reflect": 100,
	"int.div": 1000, "float.div": 1000, "float.div_int": 1000,
	"memcpy": 1000, "alloc": 1000, "alloc.object": 1000, "pool": 1000,
	"goroutine": 100, "thread": 5, "chan.pingpong": 100, "mutex": 1000, "atomic.add": 1000, "timer.zero": 20,
	"syscall.getpid": 100, "clock.time": 100, "clock.gettimeofday": 100, "clock.gettime": 100, "time.now": 100,
	"file.read": 5, "file.write": 5, "process.spawn": 2,
}

func TestCatalogOpsRun(t *testing.T) {
	for name, n := range catalog {
		t.Run(name, func(t *testing.T) {
			op := prepare(t, name, nil)
			s, err := op.Run(context.Background(), n)
			if err != nil {
				t.Fatalf("Run(%d): %v", n, err)
			}
			if s.N != 0 && s.N != n {
				t.Errorf("Sample.N = %d, want %d or 0", s.N, n)
			}
			def, _ := Lookup(name)
			for _, m := range def.Metrics {
				if _, ok := s.Metrics[m.Name]; !ok {
					t.Errorf("metric %s declared but not reported", m.Name)
				}
			}
			for k := range s.Metrics {
				if !declares(def, k) {
					t.Errorf("metric %s reported but not declared", k)
				}
			}
		})
	}
}

func declares(def *Def, metric string) bool {
	for _, m := range def.Metrics {
		if m.Name == metric {
			return true
		}
	}
	return false
}

// goTypes is the Go type of a value of each parameter type.
var goTypes = map[param.Type]reflect.Type{
	param.Number: reflect.TypeFor[float64](), param.Int: reflect.TypeFor[int64](),
	param.String: reflect.TypeFor[string](), param.Bool: reflect.TypeFor[bool](),
	param.Size: reflect.TypeFor[int64](), param.Strings: reflect.TypeFor[[]string](),
}

// TestCatalogDocumented checks what `specrun ops` prints: every op says
// what an iteration does and which classic row it stands for, and every
// parameter and metric is typed and explained.
func TestCatalogDocumented(t *testing.T) {
	for name := range catalog {
		def, ok := Lookup(name)
		if !ok {
			t.Errorf("op %s is not registered", name)
			continue
		}
		if def.Doc == "" || def.Classic == "" {
			t.Errorf("%s: Doc and Classic must be set", name)
		}
		for _, p := range def.Params {
			if p.Doc == "" {
				t.Errorf("%s: param %s has no doc", name, p.Name)
			}
			if want, ok := goTypes[p.Type]; ok && p.Default != nil && reflect.TypeOf(p.Default) != want {
				t.Errorf("%s: param %s default is %T, want %v", name, p.Name, p.Default, want)
			}
			if p.Type == param.String && p.Enum != nil && !contains(p.Enum, p.Default.(string)) {
				t.Errorf("%s: param %s default %q is not in its enum", name, p.Name, p.Default)
			}
		}
		for _, m := range def.Metrics {
			if m.Unit == "" || m.Doc == "" {
				t.Errorf("%s: metric %s needs a unit and a doc", name, m.Name)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestCallsComputeTheirResults(t *testing.T) {
	// Each callee adds one, so n calls over i = 0..n-1 sum to n(n+1)/2:
	// proof that every call happened and its result was used.
	const n = 1000
	for _, name := range []string{"call.direct", "call.func_value", "call.interface"} {
		sinkInt = 0
		if _, err := prepare(t, name, nil).Run(context.Background(), n); err != nil {
			t.Fatal(err)
		}
		if want := int64(n * (n + 1) / 2); sinkInt != want {
			t.Errorf("%s: sum = %d, want %d", name, sinkInt, want)
		}
	}
	if _, err := prepare(t, "call.reflect", nil).Run(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	if sinkInt != 2*n {
		t.Errorf("call.reflect: sum = %d, want %d", sinkInt, 2*n)
	}
}

func TestDivisionsComputeTheirResults(t *testing.T) {
	const n = 100
	var wantInt int64
	var wantFloat float64
	for i := int64(0); i < n; i++ {
		wantInt += i / 7
	}
	for x := 1.0; x <= n; x++ {
		wantFloat += x / 7
	}
	run := func(name string) {
		if _, err := prepare(t, name, nil).Run(context.Background(), n); err != nil {
			t.Fatal(err)
		}
	}
	if run("int.div"); sinkInt != wantInt {
		t.Errorf("int.div: sum = %d, want %d", sinkInt, wantInt)
	}
	if run("float.div"); sinkFloat != wantFloat {
		t.Errorf("float.div: sum = %g, want %g", sinkFloat, wantFloat)
	}
	if run("float.div_int"); sinkInt != wantInt {
		t.Errorf("float.div_int: sum = %d, want %d (truncation matches integer division here)", sinkInt, wantInt)
	}
}

// TestInProcessOpsStopWhenCancelled: an op told to stop does, rather than
// run on and steal a core from the benchmarks after it.
func TestInProcessOpsStopWhenCancelled(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for name := range catalog {
		if name == "process.spawn" {
			continue // the process ops are tested with the processes
		}
		t.Run(name, func(t *testing.T) {
			s, err := prepare(t, name, nil).Run(cancelled, 1<<20)
			if !errors.Is(err, context.Canceled) || s.N >= 1<<20 {
				t.Errorf("Run on a cancelled context: N=%d, err=%v; want it stopped with context.Canceled", s.N, err)
			}
		})
	}
}

// TestOpsStopMidRun: a timeout during a run too long to finish in any
// test's time stops it between two chunks.
func TestOpsStopMidRun(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  param.Values
	}{
		{"noop", nil},
		{"call.reflect", nil},
		{"memcpy", param.Values{"size": int64(16 << 20)}},
		{"alloc", param.Values{"size": int64(1 << 20)}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		s, err := prepare(t, tc.name, tc.set).Run(ctx, math.MaxInt64)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || s.N >= math.MaxInt64 {
			t.Errorf("%s: N=%d, err=%v; want it stopped with DeadlineExceeded", tc.name, s.N, err)
		}
	}
}
