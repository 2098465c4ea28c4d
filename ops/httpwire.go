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

// wireConn is one connection with its read buffer. It is owned by one
// worker; only the phase's watchdog touches nc concurrently, to set a
// deadline that unblocks a request over its time.
type wireConn struct {
	nc    conn
	buf   []byte
	r, w  int   // buf[r:w] is read and not yet parsed
	n     int64 // bytes read from nc, headers included
	first int64 // clock (monoNow) when the current response's first bytes were read
	reads int   // reads done for the current response
}

func newWireConn(nc conn, buf []byte) *wireConn {
	return &wireConn{nc: nc, buf: buf}
}

// monoBase anchors monoNow: time.Since on a time with a monotonic reading
// costs one monotonic clock read, half of time.Now's two.
var monoBase = time.Now()

// monoNow is the monotonic clock in nanoseconds since monoBase.
func monoNow() int64 { return int64(time.Since(monoBase)) }

// fill reads more of the response into the buffer, keeping what is unread.
func (c *wireConn) fill() error {
	if c.r == c.w {
		c.r, c.w = 0, 0
	} else if c.w == len(c.buf) {
		if c.r == 0 {
			return errLineTooLong
		}
		c.w = copy(c.buf, c.buf[c.r:c.w])
		c.r = 0
	}
	for empty := 0; ; empty++ {
		n, err := c.nc.Read(c.buf[c.w:])
		if n > 0 {
			if c.reads == 0 {
				c.first = monoNow()
			}
			c.reads++
			c.w += n
			c.n += int64(n)
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

// line returns the next header line without its line ending, reading as
// needed. The slice is valid until the next read.
func (c *wireConn) line() ([]byte, error) {
	scanned := 0
	for {
		if i := bytes.IndexByte(c.buf[c.r+scanned:c.w], '\n'); i >= 0 {
			l := c.buf[c.r : c.r+scanned+i]
			c.r += scanned + i + 1
			if n := len(l); n > 0 && l[n-1] == '\r' {
				l = l[:n-1]
			}
			return l, nil
		}
		scanned = c.w - c.r
		if err := c.fill(); err != nil {
			if err == io.EOF && scanned > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// discard consumes n body bytes.
func (c *wireConn) discard(n int64) error {
	for {
		k := min(n, int64(c.w-c.r))
		c.r += int(k)
		n -= k
		if n == 0 {
			return nil
		}
		if err := c.fill(); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
}

// readResponse reads one response to a request (head: to a HEAD request,
// which has no body), skipping interim 1xx responses.
func (c *wireConn) readResponse(head bool) (response, error) {
	c.reads = 0
	if c.r < c.w {
		c.first = monoNow()
		c.reads = 1
	}
	headerBytes := c.n - int64(c.w-c.r)
	for {
		resp, length, chunked, err := c.readHeader(headerBytes)
		if err != nil {
			return resp, err
		}
		switch {
		case resp.status >= 100 && resp.status <= 199:
			if resp.status == 101 {
				return resp, fmt.Errorf("%w: 101 Switching Protocols", errBadResponse)
			}
			headerBytes = c.n - int64(c.w-c.r)
			continue // an interim response; the real one follows
		case head || resp.status == 204 || resp.status == 304:
			return resp, nil
		case chunked:
			resp.body, err = c.readChunked()
			return resp, err
		case length >= 0:
			resp.body = length
			return resp, c.discard(length)
		}
		// No length: the body runs to the end of the connection.
		resp.close = true
		for {
			resp.body += int64(c.w - c.r)
			c.r = c.w
			if err := c.fill(); err != nil {
				if err == io.EOF {
					err = nil
				}
				return resp, err
			}
		}
	}
}

// readHeader parses a status line and headers; length is -1 when no
// Content-Length was given. start is c.n where this response began, for
// the size limit.
func (c *wireConn) readHeader(start int64) (resp response, length int64, chunked bool, err error) {
	length = -1
	l, err := c.line()
	if err != nil {
		return resp, length, false, err
	}
	// "HTTP/1.1 200 OK"
	if len(l) < 12 || string(l[:7]) != "HTTP/1." || (l[7] != '0' && l[7] != '1') || l[8] != ' ' ||
		(len(l) > 12 && l[12] != ' ') {
		return resp, length, false, fmt.Errorf("%w: status line %q", errBadResponse, clip(l))
	}
	for _, d := range l[9:12] {
		if d < '0' || d > '9' {
			return resp, length, false, fmt.Errorf("%w: status line %q", errBadResponse, clip(l))
		}
		resp.status = resp.status*10 + int(d-'0')
	}
	keepalive := l[7] == '1' // HTTP/1.1 keeps the connection unless told otherwise
	for {
		l, err := c.line()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return resp, length, chunked, err
		}
		if c.n-int64(c.w-c.r)-start > maxHeaderBytes {
			return resp, length, chunked, errHeaderTooLarge
		}
		if len(l) == 0 {
			break
		}
		if l[0] == ' ' || l[0] == '\t' {
			continue // an obsolete folded continuation of the last header
		}
		colon := bytes.IndexByte(l, ':')
		if colon <= 0 {
			return resp, length, chunked, fmt.Errorf("%w: header line %q", errBadResponse, clip(l))
		}
		name, value := l[:colon], trimSpace(l[colon+1:])
		switch {
		case equalFold(name, "content-length"):
			n, ok := parseLength(value)
			if !ok || (length >= 0 && n != length) {
				return resp, length, chunked, fmt.Errorf("%w: Content-Length %q", errBadResponse, clip(value))
			}
			length = n
		case equalFold(name, "transfer-encoding"):
			chunked = hasToken(value, "chunked")
		case equalFold(name, "connection"):
			if hasToken(value, "close") {
				keepalive = false
			} else if hasToken(value, "keep-alive") {
				keepalive = true
			}
		}
	}
	resp.close = !keepalive
	return resp, length, chunked, nil
}

// readChunked consumes a chunked body and its trailers, returning the
// decoded body length.
func (c *wireConn) readChunked() (int64, error) {
	var body int64
	for {
		l, err := c.line()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return body, err
		}
		if len(l) > maxChunkLine {
			return body, fmt.Errorf("%w: chunk-size line over 4 KiB", errBadResponse)
		}
		if semi := bytes.IndexByte(l, ';'); semi >= 0 {
			l = l[:semi]
		}
		size, ok := parseHex(trimSpace(l))
		if !ok {
			return body, fmt.Errorf("%w: chunk size %q", errBadResponse, clip(l))
		}
		if size == 0 {
			break
		}
		if body > 1<<62-size {
			return body, fmt.Errorf("%w: chunked body over 2^62 bytes", errBadResponse)
		}
		if err := c.discard(size); err != nil {
			return body, err
		}
		body += size
		if l, err := c.line(); err != nil || len(l) != 0 {
			if err == nil || err == io.EOF {
				err = fmt.Errorf("%w: chunk not followed by CRLF", errBadResponse)
			}
			return body, err
		}
	}
	for total := 0; ; { // trailers, up to an empty line
		l, err := c.line()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return body, err
		}
		if len(l) == 0 {
			return body, nil
		}
		if total += len(l); total > maxHeaderBytes {
			return body, errHeaderTooLarge
		}
	}
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
