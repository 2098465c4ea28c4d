package ops

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// chunkConn is a net.Conn that hands out data a few bytes per read, so
// that every split of a response across reads is exercised.
type chunkConn struct {
	net.Conn // nil: only Read is called
	data     []byte
	step     int
}

func (c *chunkConn) Read(b []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(b), c.step, len(c.data))
	copy(b, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

func parseAll(data string, step, bufSize int, head bool) ([]response, error) {
	c := newWireConn(&chunkConn{data: []byte(data), step: step}, make([]byte, bufSize))
	var out []response
	for {
		if c.r == c.w {
			if err := c.fill(); err == io.EOF {
				return out, nil
			} else if err != nil {
				return out, err
			}
		}
		r, err := c.readResponse(head)
		if err != nil {
			return out, err
		}
		out = append(out, r)
		if r.close {
			return out, nil
		}
	}
}

func TestReadResponse(t *testing.T) {
	big := strings.Repeat("x", 100000)
	for _, c := range []struct {
		name string
		in   string
		head bool
		want []response
		err  string
	}{
		{"content-length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false, []response{{200, 5, false}}, ""},
		{"two kept alive", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhiHTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n", false,
			[]response{{200, 2, false}, {404, 0, false}}, ""},
		{"body larger than the buffer", "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + big, false, []response{{200, 100000, false}}, ""},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-Trailer: y\r\n\r\n", false,
			[]response{{200, 15, false}}, ""},
		{"chunked and close", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n0\r\n\r\n", false,
			[]response{{200, 3, true}}, ""},
		{"1.0 closes", "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx", false, []response{{200, 1, true}}, ""},
		{"1.0 kept alive", "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 1\r\n\r\nx", false, []response{{200, 1, false}}, ""},
		{"to the end", "HTTP/1.1 200 OK\r\n\r\n" + big, false, []response{{200, 100000, true}}, ""},
		{"interim 100", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n", false, []response{{201, 0, false}}, ""},
		{"no body: 204", "HTTP/1.1 204 No Content\r\n\r\n", false, []response{{204, 0, false}}, ""},
		{"no body: HEAD", "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", true, []response{{200, 0, false}}, ""},
		{"bare LF", "HTTP/1.1 200 OK\nContent-Length: 1\n\nx", false, []response{{200, 1, false}}, ""},
		{"short body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", false, nil, "unexpected EOF"},
		{"bad status", "HTTP/1.1 2x0 OK\r\n\r\n", false, nil, "malformed response"},
		{"not http", "SSH-2.0-OpenSSH\r\n\r\n", false, nil, "malformed response"},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", false, nil, "malformed response"},
		{"two lengths", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx", false, nil, "malformed response"},
		{"bad chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", false, nil, "malformed response"},
		{"chunk without CRLF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n0\r\n\r\n", false, nil, "malformed response"},
		{"huge chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n", false, nil, "malformed response"},
		{"long line", "HTTP/1.1 200 OK\r\nX: " + big + "\r\n\r\n", false, nil, "header line over"},
		{"huge header", "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-A: "+strings.Repeat("a", 1000)+"\r\n", 70) + "\r\n", false, nil, "header over 64 KiB"},
	} {
		for _, step := range []int{1, 7, 1 << 20} {
			got, err := parseAll(c.in, step, readBufferSize, c.head)
			switch {
			case c.err == "" && err != nil:
				t.Errorf("%s, %d bytes a read: err = %v", c.name, step, err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("%s, %d bytes a read: err = %v, want %q", c.name, step, err, c.err)
			case c.err == "" && !equalResponses(got, c.want):
				t.Errorf("%s, %d bytes a read: %+v, want %+v", c.name, step, got, c.want)
			}
		}
	}
}

func equalResponses(a, b []response) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestBuildRequest(t *testing.T) {
	for _, c := range []struct {
		method, target string
		headers        [][2]string
		body           string
		keepalive      bool
		want           string
	}{
		{"GET", "/", nil, "", true, "GET / HTTP/1.1\r\nHost: h:1\r\n\r\n"},
		{"GET", "/a?b=c", nil, "", false, "GET /a?b=c HTTP/1.1\r\nHost: h:1\r\nConnection: close\r\n\r\n"},
		{"POST", "/p", [][2]string{{"X-Token", "t"}}, "hello", true,
			"POST /p HTTP/1.1\r\nHost: h:1\r\nX-Token: t\r\nContent-Length: 5\r\n\r\nhello"},
		{"GET", "/", [][2]string{{"host", "other"}, {"Connection", "keep-alive"}}, "", false,
			"GET / HTTP/1.1\r\nhost: other\r\nConnection: keep-alive\r\n\r\n"},
	} {
		if got := string(buildRequest(c.method, c.target, "h:1", c.headers, []byte(c.body), c.keepalive)); got != c.want {
			t.Errorf("buildRequest(%s %s %v %q keepalive=%v) = %q, want %q", c.method, c.target, c.headers, c.body, c.keepalive, got, c.want)
		}
	}
}

// FuzzReadResponse: whatever a server sends, the parser returns (no panic,
// no loop), holds no more than its buffer, and where net/http reads a
// response that declares its length, it finds the same status and body length.
func FuzzReadResponse(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"HTTP/1.0 404 Not Found\r\n\r\nbody to the end",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc",
	} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		c := newWireConn(&chunkConn{data: data, step: int(step) + 1}, make([]byte, 256))
		done := make(chan struct{})
		var resp response
		var err error
		go func() {
			defer close(done)
			resp, err = c.readResponse(false)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("readResponse(%q) does not return", data)
		}
		if len(c.buf) != 256 {
			t.Fatalf("buffer grew to %d bytes", len(c.buf))
		}
		if err != nil || resp.close {
			return // net/http is laxer or stricter about malformed input; only agreement on good input is checked
		}
		hr, herr := http.ReadResponse(bufio.NewReader(bytes.NewReader(data)), nil)
		if herr != nil {
			return
		}
		n, herr := io.Copy(io.Discard, hr.Body)
		if herr != nil || hr.StatusCode/100 == 1 {
			return
		}
		if hr.StatusCode != resp.status || n != resp.body {
			t.Errorf("%q: status %d, body %d; net/http reads %d, %d", data, resp.status, resp.body, hr.StatusCode, n)
		}
	})
}

func TestRetryableErrors(t *testing.T) {
	if !retryable(io.EOF) || retryable(errors.New("other")) {
		t.Error("retryable: want io.EOF only among these")
	}
}
