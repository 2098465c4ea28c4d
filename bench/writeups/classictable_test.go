package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/specrun/specrun/spec"
)

// The repository root, from this package's directory.
var root = filepath.Join("..", "..")

func loadClassicTable(t *testing.T) []classicRow {
	t.Helper()
	f, err := os.Open(filepath.Join(root, classicSpec))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := readClassicTable(f)
	if err != nil {
		t.Fatalf("%s: %v", classicSpec, err)
	}
	return rows
}

func loadSpec(t *testing.T, path string, vars map[string]string) *spec.Plan {
	t.Helper()
	// Stored: the libc variant names ops this build may lack; only names,
	// labels and ops are checked here.
	plan, diags := spec.Load([]string{filepath.Join(root, path)}, spec.Options{Vars: vars, Stored: true})
	if diags.HasErrors() {
		t.Fatalf("%s: %s", path, diags.Error())
	}
	return plan
}

// TestClassicTableNamesEveryInstanceOnce checks the example's header table
// against the spec: each instance once, with its label, each table
// instance in the spec, and each write-up row once, in the write-up's
// order (ascending time).
func TestClassicTableNamesEveryInstanceOnce(t *testing.T) {
	rows := loadClassicTable(t)
	plan := loadSpec(t, classicSpec, nil)

	labels := map[string]string{}
	for _, b := range plan.Benchmarks {
		labels[b.Name] = b.Label
	}
	seenInstance, seenRow, seenLabel := map[string]bool{}, map[string]bool{}, map[string]bool{}
	last := math.Inf(-1)
	for _, r := range rows {
		if r.Row == "-" && r.Instance == "-" {
			t.Errorf("a row with neither a write-up row nor an instance")
		}
		if r.Row != "-" {
			if seenRow[r.Row] {
				t.Errorf("write-up row %q is in the table twice", r.Row)
			}
			seenRow[r.Row] = true
			if math.IsNaN(r.NS) || r.NS < last {
				t.Errorf("write-up row %q: ns %v out of the write-up's ascending order", r.Row, r.NS)
			} else {
				last = r.NS
			}
		}
		if r.Instance == "-" {
			if r.Label != "-" {
				t.Errorf("row %q has a label %q but no instance", r.Row, r.Label)
			}
			continue
		}
		if seenInstance[r.Instance] {
			t.Errorf("instance %q is in the table twice", r.Instance)
		}
		seenInstance[r.Instance] = true
		if seenLabel[r.Label] {
			t.Errorf("label %q is in the table twice: a row's label must name it alone", r.Label)
		}
		seenLabel[r.Label] = true
		label, ok := labels[r.Instance]
		switch {
		case !ok:
			t.Errorf("the table names instance %q, which the spec does not have", r.Instance)
		case label != r.Label:
			t.Errorf("instance %q: the table's label %q, the spec's %q", r.Instance, r.Label, label)
		}
	}
	for _, b := range plan.Benchmarks {
		if !seenInstance[b.Name] {
			t.Errorf("instance %q (%s) is not in the table", b.Name, b.Label)
		}
	}
}

// TestLibcVariants checks that var.libc turns the classic malloc/free rows
// into c.malloc, labelled as the write-up's rows, and the timers' time()
// row into c.time, and that the default specs use no libc op.
func TestLibcVariants(t *testing.T) {
	rowOf := map[string]string{}
	for _, r := range loadClassicTable(t) {
		rowOf[r.Instance] = r.Row
	}
	cases := []struct {
		path      string
		instances []string // the instances var.libc changes
		goOp, cOp string
	}{
		{classicSpec, []string{"alloc/size=16B", "alloc/size=16MB"}, "alloc", "c.malloc"},
		{"examples/timers.hcl", []string{"time"}, "clock.time", "c.time"},
	}
	for _, c := range cases {
		for _, libc := range []bool{false, true} {
			vars, want := map[string]string{}, c.goOp
			if libc {
				vars["libc"], want = "true", c.cOp
			}
			ops := map[string]string{}
			for _, b := range loadSpec(t, c.path, vars).Benchmarks {
				ops[b.Name] = b.Op.Name
				if strings.HasPrefix(b.Op.Name, "c.") && !libc {
					t.Errorf("%s: %s uses %s without var.libc", c.path, b.Name, b.Op.Name)
				}
				if row, ok := rowOf[b.Name]; ok && libc && c.path == classicSpec && slices.Contains(c.instances, b.Name) && b.Label != row {
					t.Errorf("libc=true: %s is labelled %q, want the write-up's row %q", b.Name, b.Label, row)
				}
			}
			for _, name := range c.instances {
				if ops[name] != want {
					t.Errorf("%s libc=%v: %s uses %q, want %s", c.path, libc, name, ops[name], want)
				}
			}
		}
	}
}
