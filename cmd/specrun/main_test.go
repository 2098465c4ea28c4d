package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"specrun": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
		"ontty":   func() { os.Exit(onTTY(os.Args[1:])) },
	})
}

// TestScript runs the CLI scripts in testdata/script: each is a txtar
// archive of files and the commands to run against them. $EXAMPLES is the
// repository's examples directory.
func TestScript(t *testing.T) {
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("EXAMPLES", examples)
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "pty" { // ontty can open a pseudo-terminal
				return havePTY(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode": exitcodeCmd,
			"glob":     globCmd,
			"sleep":    sleepCmd,
		},
	})
}

// exitcodeCmd is `exitcode N PROGRAM ARGS...`: run PROGRAM and require that
// it exits with status N. Its stdout and stderr are then checked as after exec.
func exitcodeCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// globCmd is `glob N PATTERN [NAME]`: require that PATTERN matches exactly
// N files and, with NAME, copy the one match there. Result files are named
// by the time of the run, which a script cannot know.
func globCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: glob N PATTERN [NAME]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("glob: %v", err)
	}
	matches, err := filepath.Glob(ts.MkAbs(args[1]))
	if err != nil {
		ts.Fatalf("glob: %v", err)
	}
	if len(matches) != want {
		ts.Fatalf("glob %s: %d matches %q, want %d", args[1], len(matches), matches, want)
	}
	if len(args) == 3 {
		if want != 1 {
			ts.Fatalf("glob: copy needs exactly one match")
		}
		data, err := os.ReadFile(matches[0])
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(args[2]), data, 0o644))
	}
}

// sleepCmd is `sleep DURATION`: give a background command time to get
// going before a script signals it.
func sleepCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sleep DURATION")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	time.Sleep(d)
}
