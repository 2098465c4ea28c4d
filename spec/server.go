package spec

import (
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/specrun/specrun/ops"
	"github.com/specrun/specrun/param"
)

// Server defaults.
const (
	DefaultReadyTimeout = 30 * time.Second
	DefaultGrace        = 5 * time.Second
	DefaultStopSignal   = "TERM"
	DefaultBodySize     = 6041 // the builtin static page, 5.9 KB as in the classic ab run
)

// Builtins are the kinds of builtin server that `specrun serve` provides.
var Builtins = []string{"static"}

// StopSignals are the signals a server may be stopped with, by the name a
// spec gives them (without "SIG"), in the order messages list them.
var StopSignals = []struct {
	Name   string
	Signal syscall.Signal
}{{"TERM", syscall.SIGTERM}, {"INT", syscall.SIGINT}, {"HUP", syscall.SIGHUP}, {"QUIT", syscall.SIGQUIT}, {"KILL", syscall.SIGKILL}}

// LookupStopSignal returns the signal a server's StopSignal names.
func LookupStopSignal(name string) (syscall.Signal, bool) {
	for _, s := range StopSignals {
		if s.Name == name {
			return s.Signal, true
		}
	}
	return 0, false
}

func stopSignalNames() string {
	names := make([]string, len(StopSignals))
	for i, s := range StopSignals {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}

// commandOnly and builtinOnly are the attributes that make sense for one
// kind of server only; both kinds take the rest of serverAttrs, and
// depends_on, a list of references (decodeServerDeps).
var (
	commandOnly = []param.Param{commandAttr, urlAttr, readyAttr, envAttr, dirAttr}
	builtinOnly = []param.Param{builtinAttr, bodySizeAttr, workAttr}
	serverAttrs = append(append([]param.Param{readyTimeoutAttr, stopSignalAttr, graceAttr, versionAttr}, commandOnly...), builtinOnly...)
)

var serverSchema = &hcl.BodySchema{Attributes: attrSchema(serverAttrs, "depends_on")}

// decodeServerBlock decodes a server block: a command specrun starts, or
// specrun's builtin server.
func (l *loader) decodeServerBlock(b *hcl.Block) (*Server, hcl.Diagnostics) {
	d := l.fresh()
	content, diags := b.Body.Content(serverSchema)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return nil, d.diags
	}
	attrs := content.Attributes
	s := &Server{Name: b.Labels[0], ReadyTimeout: DefaultReadyTimeout, StopSignal: DefaultStopSignal, Grace: DefaultGrace, DeclRange: b.DefRange}
	ctx := d.ctx(nil)

	isCommand, isBuiltin := attrs["command"] != nil, attrs["builtin"] != nil
	switch {
	case isCommand && isBuiltin:
		d.errorf(attrs["builtin"].NameRange.Ptr(), "Conflicting server kinds",
			"Server %q sets both \"command\" and \"builtin\"; a server is either a command specrun starts or specrun's builtin server.", s.Name)
		return nil, d.diags
	case !isCommand && !isBuiltin:
		d.errorf(b.DefRange.Ptr(), "Missing server command",
			"Server %q needs either command = [\"PROGRAM\", \"ARG\"...] with a ready URL, or builtin = \"static\".", s.Name)
		return nil, d.diags
	}
	wrong, kind := builtinOnly, "a command server"
	if isBuiltin {
		wrong, kind = commandOnly, "a builtin server"
	}
	for _, p := range wrong {
		if attr := attrs[p.Name]; attr != nil {
			d.errorf(attr.NameRange.Ptr(), "Unsupported server attribute", "Attribute %q does not apply to %s.", p.Name, kind)
		}
	}

	if isCommand {
		s.Command = d.decodeCommand(attrs, ctx, commandAttr, s.Name)
		d.decodeURL(attrs, ctx, urlAttr, false, &s.URL)
		d.decodeURL(attrs, ctx, readyAttr, true, &s.Ready)
		decodeInto(d, attrs, ctx, envAttr, &s.Env)
		decodeInto(d, attrs, ctx, dirAttr, &s.Dir)
		if s.URL == "" && s.Ready != "" {
			u, _ := url.Parse(s.Ready)
			s.URL = u.Scheme + "://" + u.Host
		}
		if s.URL == "" && !d.diags.HasErrors() {
			d.errorf(b.DefRange.Ptr(), "Missing server URL",
				"Server %q needs \"url\" (its base URL) or \"ready\" (a URL polled until it answers), so that benchmarks know where it listens.", s.Name)
		}
	} else {
		decodeInto(d, attrs, ctx, builtinAttr, &s.Builtin)
		s.BodySize = DefaultBodySize
		decodeInto(d, attrs, ctx, bodySizeAttr, &s.BodySize)
		decodeInto(d, attrs, ctx, workAttr, &s.Work)
		s.URL = ops.ServerURLScheme + s.Name
	}

	if attrs[versionAttr.Name] != nil {
		s.Version = d.decodeCommand(attrs, ctx, versionAttr, s.Name)
	}
	if attr := attrs["depends_on"]; attr != nil {
		s.dependsOn = attr
	}
	decodeInto(d, attrs, ctx, readyTimeoutAttr, &s.ReadyTimeout)
	decodeInto(d, attrs, ctx, graceAttr, &s.Grace)
	var sig string
	if decodeInto(d, attrs, ctx, stopSignalAttr, &sig) {
		sig = strings.TrimPrefix(strings.ToUpper(sig), "SIG")
		if _, ok := LookupStopSignal(sig); ok {
			s.StopSignal = sig
		} else {
			d.errorf(attrs[stopSignalAttr.Name].Expr.Range().Ptr(), "Unknown stop signal",
				"Servers are stopped with one of %s; got %q.", stopSignalNames(), sig)
		}
	}
	if d.diags.HasErrors() {
		return nil, d.diags
	}
	return s, d.diags
}

// decodeCommand decodes a list of strings that names a program and its
// arguments: a server's command or its version command. Null is empty.
func (l *loader) decodeCommand(attrs hcl.Attributes, ctx *hcl.EvalContext, p param.Param, server string) []string {
	attr := attrs[p.Name]
	v, diags := evaluate(attr.Expr, ctx)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() || !v.IsWhollyKnown() {
		return nil
	}
	var argv []string
	if !v.IsNull() {
		gv, diags := paramValue(p, v, attr.Expr.Range())
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			return nil
		}
		argv = gv.([]string)
	}
	if len(argv) == 0 {
		l.errorf(attr.Expr.Range().Ptr(), "Empty server command", "The %s of server %q is empty; name the program to start.", p.Name, server)
		return nil
	}
	return argv
}

// decodeURL decodes an absolute http or https URL, or, where tcp is true,
// a tcp://HOST:PORT address (a server that speaks something other than
// HTTP is ready once it accepts a connection).
func (l *loader) decodeURL(attrs hcl.Attributes, ctx *hcl.EvalContext, p param.Param, tcp bool, dst *string) {
	var s string
	if !decodeInto(l, attrs, ctx, p, &s) || s == "" {
		return
	}
	attr := attrs[p.Name]
	u, err := url.Parse(s)
	if tcp && err == nil && u.Scheme == "tcp" {
		if u.Port() == "" || u.Hostname() == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			l.errorf(attr.Expr.Range().Ptr(), "Invalid URL", "A tcp:// value of %q is a host and port, such as \"tcp://127.0.0.1:11211\"; got %q.", attr.Name, s)
			return
		}
		*dst = "tcp://" + u.Host
		return
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		also := ""
		if tcp {
			also = ", or tcp://HOST:PORT for a server that does not speak HTTP"
		}
		l.errorf(attr.Expr.Range().Ptr(), "Invalid URL", "The value of %q must be an absolute http:// or https:// URL%s; got %q.", attr.Name, also, s)
		return
	}
	*dst = s
}

// ServerFor returns the command server whose base URL (or ready URL) has
// the scheme and host of rawURL: a benchmark that loads
// "${server.app.url}/path" loads server app. Servers are tried in the
// order the spec declares them, so two that share a host give the same
// answer every time.
func (p *Plan) ServerFor(rawURL string) (string, bool) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", false
	}
	for _, s := range p.Servers {
		for _, v := range []string{s.URL, s.Ready} {
			if w, err := url.Parse(v); err == nil && v != "" && w.Scheme == u.Scheme && w.Host == u.Host {
				return s.Name, true
			}
		}
	}
	return "", false
}

// decodeServerDeps resolves each server's depends_on, a list of
// server.NAME references, once every server block is known, and reports
// unknown names and cycles.
func (l *loader) decodeServerDeps(servers []*Server) {
	byName := map[string]*Server{}
	names := make([]string, 0, len(servers))
	for _, s := range servers {
		byName[s.Name] = s
		names = append(names, s.Name)
	}
	for _, s := range servers {
		attr := s.dependsOn
		if attr == nil {
			continue
		}
		exprs, diags := hcl.ExprList(attr.Expr)
		if diags.HasErrors() {
			l.errorf(attr.Expr.Range().Ptr(), "Invalid depends_on",
				"The value of \"depends_on\" is a list of servers, such as [server.cache].")
			continue
		}
		for _, e := range exprs {
			tr, diags := hcl.AbsTraversalForExpr(e)
			if diags.HasErrors() || len(tr) != 2 || tr.RootName() != "server" {
				l.errorf(e.Range().Ptr(), "Invalid depends_on",
					"Each element of \"depends_on\" names a server block as server.NAME, such as server.cache.")
				continue
			}
			step, ok := tr[1].(hcl.TraverseAttr)
			if !ok {
				l.errorf(e.Range().Ptr(), "Invalid depends_on", "Each element of \"depends_on\" names a server block as server.NAME, such as server.cache.")
				continue
			}
			name := step.Name
			switch {
			case byName[name] == nil:
				l.errorf(e.Range().Ptr(), "Unknown server",
					"Server %q depends on server %q, which this spec does not declare.%s", s.Name, name, didYouMean(name, names))
			case name == s.Name:
				l.errorf(e.Range().Ptr(), "Server depends on itself", "Server %q lists itself in \"depends_on\".", s.Name)
			case slices.Contains(s.DependsOn, name):
				l.errorf(e.Range().Ptr(), "Duplicate dependency", "Server %q lists server %q twice in \"depends_on\".", s.Name, name)
			default:
				s.DependsOn = append(s.DependsOn, name)
			}
		}
	}

	// A cycle is reported once, at the depends_on of the server where the
	// search first comes back to a server it is still inside.
	const (
		unseen = iota
		inside
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(s *Server) bool
	visit = func(s *Server) bool {
		state[s.Name] = inside
		path = append(path, s.Name)
		for _, dep := range s.DependsOn {
			switch state[dep] {
			case inside:
				i := slices.Index(path, dep)
				cycle := append(append([]string{}, path[i:]...), dep)
				l.errorf(s.dependsOn.Expr.Range().Ptr(), "Server dependency cycle",
					"Servers cannot start one before the other: %s.", strings.Join(cycle, " -> "))
				return false
			case unseen:
				if !visit(byName[dep]) {
					return false
				}
			}
		}
		path = path[:len(path)-1]
		state[s.Name] = done
		return true
	}
	for _, s := range servers {
		if state[s.Name] == unseen {
			path = path[:0]
			if !visit(s) {
				break
			}
		}
	}
}

// address is the HOST:PORT a command server listens on, for a command
// line that needs it without a scheme ("--memcached ${server.cache.address}");
// empty for a builtin server, whose port is chosen when it starts.
func (s *Server) address() string {
	u, err := url.Parse(s.URL)
	if err != nil || s.Builtin != "" {
		return ""
	}
	if u.Port() != "" {
		return u.Host
	}
	switch u.Scheme {
	case "https":
		return u.Host + ":443"
	default:
		return u.Host + ":80"
	}
}
