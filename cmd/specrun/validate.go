package main

import (
	"fmt"
	"io"
)

// validateCmd decodes and checks specs without running anything. Each PATH
// is a spec of its own, loaded as run loads it: a directory is one spec of
// all its *.hcl files.
func validateCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("validate", "[flags] PATH...",
		"Decode and check each spec: types, sizes, op parameters, matrix expansion and\nassert references. Never runs an op or a server.", stderr)
	var sf specFlags
	sf.register(fs)
	paths, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usageErrorHelp(fs, "no spec path given")
	}
	var status error
	for _, p := range paths {
		plan, err := sf.load([]string{p}, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "%s: invalid\n", p)
			status = err
			continue
		}
		if err := probeLayout(plan, nil, planLayout(plan.Report)); err != nil {
			fmt.Fprintf(stderr, "%s: invalid\n", p)
			status = usageError("%s: %v", p, err)
			continue
		}
		blocks := map[string]bool{}
		for _, b := range plan.Benchmarks {
			blocks[b.Block] = true
		}
		fmt.Fprintf(stdout, "%s: ok: %s, %s (%s), %s, %s\n", p, plan.Suite.Name,
			plural(len(blocks), "benchmark"), plural(len(plan.Benchmarks), "instance"),
			plural(len(plan.Asserts), "assertion"), plural(len(plan.Servers), "server"))
	}
	return status
}

func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
