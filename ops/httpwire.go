package ops

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// The http op's client speaks HTTP/1.1 over a plain connection: one request
// built once per instance, written whole, and a response parser that reads
// into one fixed buffer per connection, counts the body and keeps none of it.

// Limits on what a response may make the client hold.
const (
	readBufferSize = 16 << 10 // per connection; also the longest header line
	maxHeaderBytes = 64 << 10 // status line and headers together
	maxChunkLine   = 4 << 10  // a chunk-size line with its extensions
)

var (
	errHeaderTooLarge = errors.New("response header over 64 KiB")
	errLineTooLong    = errors.New("response header line over 16 KiB")
	errBadResponse    = errors.New("malformed response")
)

// buildRequest is the request every connection of an instance sends.
// Headers go out as the spec wrote them; Host and Content-Length are added
// unless the spec set them.
func buildRequest(method, target, host string, headers [][2]string, body []byte, keepalive bool) []byte {
	var b strings.Builder
	b.WriteString(method + " " + target + " HTTP/1.1\r\n")
	has := map[string]bool{}
	for _, h := range headers {
		has[strings.ToLower(h[0])] = true
	}
	if !has["host"] {
		b.WriteString("Host: " + host + "\r\n")
	}
	for _, h := range headers {
		b.WriteString(h[0] + ": " + h[1] + "\r\n")
	}
	if len(body) > 0 && !has["content-length"] && !has["transfer-encoding"] {
		b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n")
	}
	if !keepalive && !has["connection"] {
		b.WriteString("Connection: close\r\n")
	}
	b.WriteString("\r\n")
	b.Write(body)
	return []byte(b.String())
}

// conn is what the client needs of a connection: a net.Conn, or on Linux
// a socket opened with fewer system calls (rawDial).
type conn interface {
	io.ReadWriteCloser
	SetDeadline(t time.Time) error
}

// response is what the client keeps of one response.
type response struct {
	status int
	body   int64 // body bytes, after chunked decoding
	close  bool  // the connection cannot carry another request
}

// wireConn is one connection with its read buffer and the state of the
// response being parsed. It is owned by one worker; only the phase's
// watchdog touches nc concurrently, to set a deadline that unblocks a
// request over its time. The event loop's connections have no nc: the loop
// reads into buf itself and hands each read to advance.
type wireConn struct {
	nc    conn
	buf   []byte
	r, w  int   // buf[r:w] is read and not yet parsed
	n     int64 // bytes read from nc, headers included
	first int64 // clock (monoNow) when the current response's first bytes were read
	reads int   // reads done for the current response

	// The parser's state: where in the response it is and what it found.
	state     parseState
	head      bool     // a response to HEAD: no body
	resp      response // the response so far
	length    int64    // its Content-Length, -1 when none
	chunked   bool
	keepalive bool  // the connection stays open after this response
	remain    int64 // body or chunk bytes still to come
	start     int64 // n where the current header began, for maxHeaderBytes
	trailers  int   // trailer bytes so far
	scanned   int   // bytes of buf[r:w] known to hold no line end
}

// parseState is where a response's parser stands.
type parseState uint8

const (
	inStatus    parseState = iota // before the status line's end
	inHeader                      // among the header lines
	inBody                        // in a body of known length
	inChunkSize                   // before a chunk-size line's end
	inChunk                       // in a chunk's data
	inChunkEnd                    // before the CRLF that ends a chunk
	inTrailer                     // among the trailers
	toClose                       // in a body that runs to the connection's end
	parsed                        // the response is complete
)

func newWireConn(nc conn, buf []byte) *wireConn {
	return &wireConn{nc: nc, buf: buf}
}

// monoBase anchors monoNow: time.Since on a time with a monotonic reading
// costs one monotonic clock read, half of time.Now's two.
var monoBase = time.Now()

// monoNow is the monotonic clock in nanoseconds since monoBase.
func monoNow() int64 { return int64(time.Since(monoBase)) }

// room makes space at the end of the buffer for a read, keeping what is
// unparsed; a buffer full of one unfinished line has none.
func (c *wireConn) room() error {
	if c.r == c.w {
		c.r, c.w = 0, 0
	} else if c.w == len(c.buf) {
		if c.r == 0 {
			return errLineTooLong
		}
		c.w = copy(c.buf, c.buf[c.r:c.w])
		c.r = 0
	}
	return nil
}

// got accounts for n bytes just read into the buffer at clock now.
func (c *wireConn) got(n int, now int64) {
	if c.reads == 0 {
		c.first = now
	}
	c.reads++
	c.w += n
	c.n += int64(n)
}

// fill reads more of the response into the buffer, keeping what is unread.
func (c *wireConn) fill() error {
	if err := c.room(); err != nil {
		return err
	}
	for empty := 0; ; empty++ {
		n, err := c.nc.Read(c.buf[c.w:])
		if n > 0 {
			c.got(n, monoNow())
			return nil
		}
		if err != nil {
			return err
		}
		if empty == 100 {
			return io.ErrNoProgress
		}
	}
}

// readResponse reads one response to a request (head: to a HEAD request,
// which has no body), skipping interim 1xx responses.
func (c *wireConn) readResponse(head bool) (response, error) {
	c.begin(head)
	for {
		done, err := c.advance()
		if err != nil || done {
			return c.resp, err
		}
		if err := c.fill(); err == io.EOF {
			_, err = c.eof()
			return c.resp, err
		} else if err != nil {
			return c.resp, err
		}
	}
}

// begin starts the parse of the response to the request just sent.
func (c *wireConn) begin(head bool) {
	c.reads = 0
	if c.r < c.w {
		c.first = monoNow()
		c.reads = 1
	}
	c.head = head
	c.resp = response{}
	c.startHeader()
}

func (c *wireConn) startHeader() {
	c.state = inStatus
	c.length = -1
	c.chunked = false
	c.start = c.n - int64(c.w-c.r)
	c.scanned = 0
	c.trailers = 0
}

// nextLine takes the next whole line from the buffer, without its line
// ending; ok is false until one has arrived. The slice is valid until the
// buffer is next read into.
func (c *wireConn) nextLine() (l []byte, ok bool) {
	i := bytes.IndexByte(c.buf[c.r+c.scanned:c.w], '\n')
	if i < 0 {
		c.scanned = c.w - c.r
		return nil, false
	}
	l = c.buf[c.r : c.r+c.scanned+i]
	c.r += c.scanned + i + 1
	c.scanned = 0
	if n := len(l); n > 0 && l[n-1] == '\r' {
		l = l[:n-1]
	}
	return l, true
}

// advance parses what the buffer holds of the current response, and
// reports whether the response is complete. It consumes body bytes as they
// come and keeps none of them.
func (c *wireConn) advance() (done bool, err error) {
	for {
		switch c.state {
		case inStatus:
			l, ok := c.nextLine()
			if !ok {
				return false, nil
			}
			if err := c.statusLine(l); err != nil {
				return false, err
			}
			c.state = inHeader
		case inHeader:
			l, ok := c.nextLine()
			if c.n-int64(c.w-c.r)-c.start > maxHeaderBytes {
				return false, errHeaderTooLarge
			}
			if !ok {
				return false, nil
			}
			if len(l) > 0 {
				if err := c.headerLine(l); err != nil {
					return false, err
				}
				continue
			}
			if done, err := c.endHeader(); done || err != nil {
				return done, err
			}
		case inBody, inChunk:
			k := min(c.remain, int64(c.w-c.r))
			c.r += int(k)
			c.remain -= k
			if c.remain > 0 {
				return false, nil
			}
			if c.state == inBody {
				c.state = parsed
				return true, nil
			}
			c.state = inChunkEnd
		case inChunkSize:
			l, ok := c.nextLine()
			if !ok {
				return false, nil
			}
			if err := c.chunkSize(l); err != nil {
				return false, err
			}
		case inChunkEnd:
			l, ok := c.nextLine()
			if !ok {
				return false, nil
			}
			if len(l) != 0 {
				return false, fmt.Errorf("%w: chunk not followed by CRLF", errBadResponse)
			}
			c.state = inChunkSize
		case inTrailer:
			l, ok := c.nextLine()
			if !ok {
				return false, nil
			}
			if len(l) == 0 {
				c.state = parsed
				return true, nil
			}
			if c.trailers += len(l); c.trailers > maxHeaderBytes {
				return false, errHeaderTooLarge
			}
		case toClose:
			c.resp.body += int64(c.w - c.r)
			c.r = c.w
			return false, nil
		case parsed:
			return true, nil
		}
	}
}

// eof is advance for the end of the connection: it completes a body that
// runs to the end, and is an error anywhere else. It is io.EOF when
// nothing of the response had come, as from a kept-alive connection the
// server closed while it was idle.
func (c *wireConn) eof() (done bool, err error) {
	switch c.state {
	case toClose, parsed:
		c.state = parsed
		return true, nil
	case inStatus:
		if c.r == c.w {
			return false, io.EOF
		}
	case inChunkEnd:
		return false, fmt.Errorf("%w: chunk not followed by CRLF", errBadResponse)
	}
	return false, io.ErrUnexpectedEOF
}

// statusLine parses "HTTP/1.1 200 OK".
func (c *wireConn) statusLine(l []byte) error {
	if len(l) < 12 || string(l[:7]) != "HTTP/1." || (l[7] != '0' && l[7] != '1') || l[8] != ' ' ||
		(len(l) > 12 && l[12] != ' ') {
		return fmt.Errorf("%w: status line %q", errBadResponse, clip(l))
	}
	status := 0
	for _, d := range l[9:12] {
		if d < '0' || d > '9' {
			return fmt.Errorf("%w: status line %q", errBadResponse, clip(l))
		}
		status = status*10 + int(d-'0')
	}
	c.resp.status = status
	c.keepalive = l[7] == '1' // HTTP/1.1 keeps the connection unless told otherwise
	return nil
}

// headerLine takes in one header line.
func (c *wireConn) headerLine(l []byte) error {
	if l[0] == ' ' || l[0] == '\t' {
		return nil // an obsolete folded continuation of the last header
	}
	colon := bytes.IndexByte(l, ':')
	if colon <= 0 {
		return fmt.Errorf("%w: header line %q", errBadResponse, clip(l))
	}
	name, value := l[:colon], trimSpace(l[colon+1:])
	switch {
	case equalFold(name, "content-length"):
		n, ok := parseLength(value)
		if !ok || (c.length >= 0 && n != c.length) {
			return fmt.Errorf("%w: Content-Length %q", errBadResponse, clip(value))
		}
		c.length = n
	case equalFold(name, "transfer-encoding"):
		c.chunked = hasToken(value, "chunked")
	case equalFold(name, "connection"):
		if hasToken(value, "close") {
			c.keepalive = false
		} else if hasToken(value, "keep-alive") {
			c.keepalive = true
		}
	}
	return nil
}

// endHeader decides, at the empty line ending a header, what follows.
func (c *wireConn) endHeader() (done bool, err error) {
	c.resp.close = !c.keepalive
	switch status := c.resp.status; {
	case status >= 100 && status <= 199:
		if status == 101 {
			return false, fmt.Errorf("%w: 101 Switching Protocols", errBadResponse)
		}
		c.resp = response{}
		c.startHeader() // an interim response; the real one follows
	case c.head || status == 204 || status == 304:
		c.state = parsed
		return true, nil
	case c.chunked:
		c.state = inChunkSize
	case c.length >= 0:
		c.resp.body = c.length
		c.remain = c.length
		c.state = inBody
	default:
		c.resp.close = true // no length: the body runs to the end of the connection
		c.state = toClose
	}
	return false, nil
}

// chunkSize takes in a chunk-size line.
func (c *wireConn) chunkSize(l []byte) error {
	if len(l) > maxChunkLine {
		return fmt.Errorf("%w: chunk-size line over 4 KiB", errBadResponse)
	}
	if semi := bytes.IndexByte(l, ';'); semi >= 0 {
		l = l[:semi]
	}
	size, ok := parseHex(trimSpace(l))
	switch {
	case !ok:
		return fmt.Errorf("%w: chunk size %q", errBadResponse, clip(l))
	case size == 0:
		c.state = inTrailer
	case c.resp.body > 1<<62-size:
		return fmt.Errorf("%w: chunked body over 2^62 bytes", errBadResponse)
	default:
		c.resp.body += size
		c.remain = size
		c.state = inChunk
	}
	return nil
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// equalFold compares b with the lower-case ASCII s, ignoring b's case.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		ch := b[i]
		if 'A' <= ch && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		if ch != s[i] {
			return false
		}
	}
	return true
}

// hasToken reports whether the comma-separated list v holds token (in
// lower case), ignoring case and spaces.
func hasToken(v []byte, token string) bool {
	for len(v) > 0 {
		i := bytes.IndexByte(v, ',')
		part := v
		if i >= 0 {
			part, v = v[:i], v[i+1:]
		} else {
			v = nil
		}
		if equalFold(trimSpace(part), token) {
			return true
		}
	}
	return false
}

// parseLength parses a Content-Length: decimal digits only, below 2^62.
func parseLength(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, d := range b {
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + int64(d-'0')
	}
	return n, true
}

// parseHex parses a chunk size: hex digits only, below 2^60.
func parseHex(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var n int64
	for _, d := range b {
		switch {
		case '0' <= d && d <= '9':
			d -= '0'
		case 'a' <= d && d <= 'f':
			d -= 'a' - 10
		case 'A' <= d && d <= 'F':
			d -= 'A' - 10
		default:
			return 0, false
		}
		n = n<<4 | int64(d)
	}
	return n, true
}
