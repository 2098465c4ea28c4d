package ops

import "golang.org/x/sys/unix"

// holdFlags open a file only to keep it: no read or write access needed.
const holdFlags = unix.O_PATH
