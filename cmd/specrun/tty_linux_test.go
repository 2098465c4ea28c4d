package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// onTTY is the program `ontty PROGRAM ARGS...` of the scripts: it runs
// PROGRAM with its stdout on a pseudo-terminal, copies what PROGRAM
// writes there to its own stdout, and exits as PROGRAM does, so that a
// script sees what a user at a terminal sees.
func onTTY(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: ontty PROGRAM [ARGS...]")
		return 2
	}
	master, slave, err := openPTY()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ontty:", err)
		return 2
	}
	defer master.Close()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = slave, os.Stderr
	err = cmd.Start()
	slave.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ontty:", err)
		return 2
	}
	io.Copy(os.Stdout, master) // ends with EIO once the program closes its end
	var ee *exec.ExitError
	if err := cmd.Wait(); errors.As(err, &ee) {
		return ee.ExitCode()
	} else if err != nil {
		fmt.Fprintln(os.Stderr, "ontty:", err)
		return 2
	}
	return 0
}

// havePTY reports whether a pseudo-terminal can be opened here.
func havePTY() bool {
	master, slave, err := openPTY()
	if err != nil {
		return false
	}
	master.Close()
	slave.Close()
	return true
}

// openPTY opens a pseudo-terminal's two ends.
func openPTY() (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("unlock pty: %w", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("pty number: %w", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	return master, slave, nil
}
