package procgroup

import (
	"bytes"
	"io"
	"os"
	"sync"
	"time"
)

// TailSize bounds what an Output keeps: the end of what was written,
// however much a command writes.
const TailSize = 4 << 10

// Tail keeps the last TailSize bytes written to it.
type Tail struct {
	mu      sync.Mutex
	buf     []byte
	dropped bool
}

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) >= TailSize {
		t.dropped = t.dropped || len(t.buf) > 0 || len(p) > TailSize
		t.buf = append(t.buf[:0], p[len(p)-TailSize:]...)
		return n, nil
	}
	if over := len(t.buf) + len(p) - TailSize; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.dropped = true
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// Lines is the last lines held (at most maxLines), trimmed, with "..." in
// front when earlier output was dropped.
func (t *Tail) Lines(maxLines int) string {
	t.mu.Lock()
	b := bytes.TrimSpace(t.buf)
	dropped := t.dropped
	t.mu.Unlock()
	for n, i := 0, len(b); maxLines > 0 && i > 0; {
		j := bytes.LastIndexByte(b[:i], '\n')
		if n++; n == maxLines || j < 0 {
			if j >= 0 {
				b, dropped = b[j+1:], true
			}
			break
		}
		i = j
	}
	if len(b) == 0 {
		return ""
	}
	if dropped {
		return "...\n" + string(b)
	}
	return string(b)
}

// Reset forgets what was kept.
func (t *Tail) Reset() {
	t.mu.Lock()
	t.buf, t.dropped = t.buf[:0], false
	t.mu.Unlock()
}

// Output is a pipe that commands write to and that specrun drains into a
// Tail (and, when asked, passes through). Its write end W is a real file,
// so waiting for a command never waits for a process it left behind that
// still holds the pipe, and nothing is buffered beyond the tail.
type Output struct {
	W    *os.File
	Tail Tail

	r    *os.File
	done chan struct{}
}

// NewOutput makes an Output; through, if not nil, also gets everything.
func NewOutput(through io.Writer) (*Output, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	o := &Output{r: r, W: w, done: make(chan struct{})}
	var dst io.Writer = &o.Tail
	if through != nil {
		dst = io.MultiWriter(&o.Tail, through)
	}
	go func() {
		defer close(o.done)
		io.Copy(dst, r)
	}()
	return o, nil
}

// Last is the end of what was written (at most maxLines), once what is in
// the pipe is read or a short wait has passed (a process left behind may
// still write).
func (o *Output) Last(maxLines int) string {
	deadline := time.Now().Add(100 * time.Millisecond)
	if o.r != nil {
		for pending(o.r) > 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
	select {
	case <-o.done:
	case <-time.After(time.Millisecond): // let the reader append what it just read
	}
	return o.Tail.Lines(maxLines)
}

// CloseWrite closes specrun's copy of the write end: the reader ends when
// every command that holds it has exited.
func (o *Output) CloseWrite() {
	if o.W != nil {
		o.W.Close()
		o.W = nil
	}
}

// Close closes the write end and lets the reader finish, up to a short
// wait, then closes the read end: what still holds the pipe then gets
// EPIPE, and is killed by its group's Close.
func (o *Output) Close() {
	o.CloseWrite()
	select {
	case <-o.done:
	case <-time.After(100 * time.Millisecond):
	}
	if o.r != nil {
		o.r.Close()
	}
}
