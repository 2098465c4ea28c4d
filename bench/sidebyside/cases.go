package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/specrun/specrun/ops"
	"github.com/specrun/specrun/param"
)

// benchCase is one op instance timed both ways. Name is an HCL block name
// and a Go sub-benchmark name at once.
type benchCase struct {
	Name   string
	Op     string
	Params param.Values // set over the op's defaults
	Noisy  bool         // files and processes: the wider bound applies
}

// cases are the ops of the classic tables that run in-process: every CPU,
// memory, concurrency and clock op, then the noisier file and process ops.
var cases = []benchCase{
	{Name: "noop", Op: "noop"},
	{Name: "call_direct", Op: "call.direct"},
	{Name: "call_func_value", Op: "call.func_value"},
	{Name: "call_interface", Op: "call.interface"},
	{Name: "call_reflect", Op: "call.reflect"},
	{Name: "int_div", Op: "int.div"},
	{Name: "int_div_dep", Op: "int.div", Params: param.Values{"dependent": true}},
	{Name: "float_div", Op: "float.div"},
	{Name: "float_div_dep", Op: "float.div", Params: param.Values{"dependent": true}},
	{Name: "float_div_int", Op: "float.div_int"},
	{Name: "memcpy_16B", Op: "memcpy", Params: param.Values{"size": int64(16)}},
	{Name: "memcpy_1MB", Op: "memcpy", Params: param.Values{"size": int64(1 << 20)}},
	{Name: "alloc_16B", Op: "alloc", Params: param.Values{"size": int64(16)}},
	{Name: "alloc_16MB", Op: "alloc", Params: param.Values{"size": int64(16 << 20)}},
	{Name: "alloc_object", Op: "alloc.object"},
	{Name: "pool", Op: "pool"},
	{Name: "goroutine", Op: "goroutine"},
	{Name: "thread", Op: "thread"},
	{Name: "chan_pingpong", Op: "chan.pingpong"},
	{Name: "mutex", Op: "mutex"},
	{Name: "atomic_add", Op: "atomic.add"},
	{Name: "timer_zero", Op: "timer.zero"},
	{Name: "syscall_getpid", Op: "syscall.getpid"},
	{Name: "clock_time", Op: "clock.time"},
	{Name: "clock_gettimeofday", Op: "clock.gettimeofday"},
	{Name: "clock_gettime", Op: "clock.gettime", Params: param.Values{"clock": "monotonic"}},
	{Name: "time_now", Op: "time.now"},
	{Name: "file_read_16B", Op: "file.read", Params: param.Values{"size": int64(16)}, Noisy: true},
	{Name: "file_read_16MB", Op: "file.read", Params: param.Values{"size": int64(16 << 20)}, Noisy: true},
	{Name: "file_write_16B", Op: "file.write", Params: param.Values{"size": int64(16)}, Noisy: true},
	{Name: "file_write_16B_atomic", Op: "file.write", Params: param.Values{"size": int64(16), "atomic": true}, Noisy: true},
	{Name: "process_spawn", Op: "process.spawn", Noisy: true},
}

// values returns the case's parameters with the op's defaults applied, as
// the spec loader hands them to the op.
func (c benchCase) values() (*ops.Def, param.Values, error) {
	def, ok := ops.Lookup(c.Op)
	if !ok {
		return nil, nil, fmt.Errorf("look up op %s: not registered", c.Op)
	}
	v := param.Values{}
	for _, p := range def.Params {
		if p.Default != nil {
			v[p.Name] = p.Default
		}
	}
	for k, x := range c.Params {
		v[k] = x
	}
	return def, v, nil
}

// hcl renders the case as a benchmark block of a spec.
func (c benchCase) hcl() string {
	var b strings.Builder
	fmt.Fprintf(&b, "benchmark %q {\n  op = %q\n  iterations = \"auto\"\n", c.Name, c.Op)
	keys := make([]string, 0, len(c.Params))
	for k := range c.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch v := c.Params[k].(type) {
		case string:
			fmt.Fprintf(&b, "  %s = %q\n", k, v)
		case []string:
			q := make([]string, len(v))
			for i, s := range v {
				q[i] = fmt.Sprintf("%q", s)
			}
			fmt.Fprintf(&b, "  %s = [%s]\n", k, strings.Join(q, ", "))
		default:
			fmt.Fprintf(&b, "  %s = %v\n", k, v)
		}
	}
	b.WriteString("}\n")
	return b.String()
}
