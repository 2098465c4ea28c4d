//go:build !linux

package ops

import "golang.org/x/sys/unix"

// holdFlags open a file only to keep it (there is no O_PATH here).
const holdFlags = unix.O_RDONLY | unix.O_NONBLOCK
