package spec

import (
	"sort"
	"time"

	"github.com/specrun/specrun/ops"
	"github.com/specrun/specrun/param"
)

// fakeOps is a catalog for tests, so that they do not depend on the real
// ops, which change on their own schedule. It covers every param type.
var fakeOps = map[string]*ops.Def{
	"noop": {Name: "noop", Doc: "Nothing."},
	"memcpy": {Name: "memcpy", Doc: "Copies size bytes.", Params: []param.Param{
		{Name: "size", Type: param.Size, Default: int64(16), Unit: "bytes", Positive: true, Doc: "Bytes per copy."},
	}},
	"file.write": {Name: "file.write", Doc: "Writes a file.", Params: []param.Param{
		{Name: "size", Type: param.Size, Required: true, Unit: "bytes", Doc: "Bytes per file."},
		{Name: "atomic", Type: param.Bool, Default: false, Doc: "Write through a temp file and rename."},
		{Name: "mode", Type: param.String, Default: "sync", Enum: []string{"sync", "nosync", "dsync"}, Doc: "Flush mode."},
	}},
	"http": {
		Name: "http", Doc: "Loads a server.", Interleave: true,
		Params: []param.Param{
			{Name: "url", Type: param.String, Required: true, Doc: "Target."},
			{Name: "requests", Type: param.Int, Default: int64(1000), Positive: true, Doc: "Requests per run."},
			{Name: "concurrency", Type: param.Int, Default: int64(10), Positive: true, Doc: "Clients."},
			{Name: "duration", Type: param.Duration, Doc: "Load phase length."},
			{Name: "think", Type: param.Duration, Default: time.Duration(0), Doc: "Pause between requests."},
			{Name: "rate", Type: param.Number, Positive: true, Doc: "Requests per second."},
			{Name: "headers", Type: param.StringMap, Doc: "Request headers."},
			{Name: "paths", Type: param.Strings, Doc: "Paths to cycle through."},
		},
		Metrics:    []ops.Metric{{Name: "requests_per_sec", Unit: "requests/s", HigherIsBetter: true}, {Name: "failed", Unit: "count"}},
		Iterations: func(p param.Values) int64 { return p.Int("requests") },
	},
}

func fakeLookup(name string) (*ops.Def, bool) { d, ok := fakeOps[name]; return d, ok }

func fakeNames() []string {
	var names []string
	for n := range fakeOps {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var fakeOptions = Options{Ops: fakeLookup, OpNames: fakeNames}
