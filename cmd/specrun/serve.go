package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/specrun/specrun/param"
	"github.com/specrun/specrun/servers"
)

// serveCmd is `specrun serve`: the builtin static server that builtin
// server blocks start. It prints its URL on stdout once it listens (that
// line is how specrun learns the port) and stops on SIGTERM or SIGINT.
func serveCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", "[flags]", "Serve a static page for http benchmarks, printing the URL once listening.", stderr)
	addr := fs.String("addr", "127.0.0.1:0", "`host:port` to listen on; port 0 picks a free one")
	bodySize := fs.String("body-size", param.FormatSize(servers.DefaultBodySize), "`size` of the static page (\"6041\", \"4KB\")")
	work := fs.Duration("work", 0, "CPU `time` spent per request (SHA-256 hashing, calibrated at start)")
	rest, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageErrorHelp(fs, "unexpected argument %q", rest[0])
	}
	size, err := param.ParseSize(*bodySize)
	if err != nil {
		return usageError("--body-size: %v", err)
	}
	if *work < 0 {
		return usageError("--work must not be negative")
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return &exitError{code: exitBenchError, err: err}
	}
	static := &servers.Static{BodySize: size, Work: *work}
	srv := &http.Server{Handler: static.Handler(), ReadHeaderTimeout: 10 * time.Second}
	// The handler is ready (its work calibrated) before the URL is printed.
	fmt.Fprintf(stdout, "http://%s\n", ln.Addr())
	if f, ok := stdout.(*os.File); ok {
		f.Sync()
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return &exitError{code: exitBenchError, err: err}
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		srv.Close()
	}
	return nil
}
