package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/ops"
	"github.com/specrun/specrun/param"
	"github.com/specrun/specrun/spec"
)

// opsCmd lists the op catalog, or describes one op: what an iteration
// does, its parameters and the metrics it records.
func opsCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("ops", "[NAME]", "List the built-in ops, or describe one: parameters, types, defaults, units, metrics.", stderr)
	names, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	switch len(names) {
	case 0:
		listOps(stdout, ops.All())
		return nil
	case 1:
		def, ok := ops.Lookup(names[0])
		if !ok {
			var all []string
			for _, d := range ops.All() {
				all = append(all, d.Name)
			}
			hint := ""
			if s := spec.Suggest(names[0], all); s != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", s)
			}
			return usageError("no op named %q%s; \"specrun ops\" lists them", names[0], hint)
		}
		describeOp(stdout, def)
		return nil
	}
	return usageErrorHelp(fs, "name one op at most")
}

func listOps(w io.Writer, defs []*ops.Def) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "OP\tONE ITERATION\n")
	for _, d := range defs {
		fmt.Fprintf(tw, "%s\t%s\n", d.Name, firstSentence(d.Doc))
	}
	tw.Flush()
}

func describeOp(w io.Writer, d *ops.Def) {
	fmt.Fprintf(w, "%s\n\n%s\n", d.Name, d.Doc)
	if d.Classic != "" {
		fmt.Fprintf(w, "\nClassic row: %s\n", d.Classic)
	}
	if d.Iterations != nil {
		fmt.Fprintf(w, "\nThe iteration count of a run is set by the parameters, not by \"iterations\".\n")
	}
	if d.Interleave {
		fmt.Fprintf(w, "\nMatrix instances run interleaved by default.\n")
	}
	fmt.Fprintf(w, "\nParameters:\n")
	if len(d.Params) == 0 {
		fmt.Fprintf(w, "  none\n")
	} else {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "  NAME\tTYPE\tDEFAULT\tUNIT\tDESCRIPTION\n")
		for _, p := range d.Params {
			doc := strings.TrimSpace(p.Doc)
			if doc != "" && !strings.HasSuffix(doc, ".") {
				doc += "."
			}
			if len(p.Enum) > 0 {
				doc += " One of: " + strings.Join(p.Enum, ", ") + "."
			}
			if p.Positive {
				doc += " Must be > 0."
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", p.Name, p.Type, formatDefault(p), orDash(p.Unit), doc)
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "\nMetrics:\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "  NAME\tUNIT\tBETTER\tDESCRIPTION\n")
	for _, m := range append(append([]ops.Metric{}, metric.Standard...), d.Metrics...) {
		if _, ok := d.Param(m.Needs); m.Needs != "" && !ok {
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", m.Name, orDash(m.Unit), orDash(m.Better()), m.Doc)
	}
	tw.Flush()
}

// formatDefault writes a default the way a spec would write it.
func formatDefault(p param.Param) string {
	if p.Required {
		return "(required)"
	}
	switch v := p.Default.(type) {
	case nil:
		return "-"
	case string:
		return fmt.Sprintf("%q", v)
	case time.Duration:
		return fmt.Sprintf("%q", v.String())
	case []string:
		return fmt.Sprintf("%q", v)
	case map[string]string:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%q = %q", k, v[k]))
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	if p.Type == param.Size {
		return fmt.Sprintf("%q", param.FormatSize(param.Values{"v": p.Default}.Size("v")))
	}
	return fmt.Sprint(p.Default)
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
