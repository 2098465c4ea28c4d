package spec

import (
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

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

var serverSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "command"}, {Name: "url"}, {Name: "ready"}, {Name: "ready_timeout"},
	{Name: "env"}, {Name: "dir"}, {Name: "stop_signal"}, {Name: "grace"},
	{Name: "builtin"}, {Name: "body_size"}, {Name: "work"},
}}

// commandOnly and builtinOnly are the attributes that make sense for one
// kind of server only.
var (
	commandOnly = []string{"command", "url", "ready", "env", "dir"}
	builtinOnly = []string{"builtin", "body_size", "work"}
)

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
	for _, name := range wrong {
		if attr := attrs[name]; attr != nil {
			d.errorf(attr.NameRange.Ptr(), "Unsupported server attribute", "Attribute %q does not apply to %s.", name, kind)
		}
	}

	if isCommand {
		if v, ok := d.eval(attrs["command"].Expr, ctx, cty.List(cty.String), "\"command\""); ok {
			if v.IsNull() || v.LengthInt() == 0 {
				d.errorf(attrs["command"].Expr.Range().Ptr(), "Empty server command", "Server %q has an empty command; name the program to start.", s.Name)
			} else {
				for it := v.ElementIterator(); it.Next(); {
					_, e := it.Element()
					if e.IsNull() {
						d.errorf(attrs["command"].Expr.Range().Ptr(), "Invalid server command", "The command of server %q holds a null argument.", s.Name)
						break
					}
					s.Command = append(s.Command, e.AsString())
				}
			}
		}
		d.urlAttr(attrs["url"], ctx, &s.URL)
		d.urlAttr(attrs["ready"], ctx, &s.Ready)
		if attr := attrs["env"]; attr != nil {
			if v, ok := d.eval(attr.Expr, ctx, cty.Map(cty.String), "\"env\""); ok && !v.IsNull() {
				s.Env = map[string]string{}
				for it := v.ElementIterator(); it.Next(); {
					k, e := it.Element()
					if !e.IsNull() {
						s.Env[k.AsString()] = e.AsString()
					}
				}
			}
		}
		d.stringAttr(attrs["dir"], ctx, &s.Dir)
		if s.URL == "" && s.Ready != "" {
			u, _ := url.Parse(s.Ready)
			s.URL = u.Scheme + "://" + u.Host
		}
		if s.URL == "" && !d.diags.HasErrors() {
			d.errorf(b.DefRange.Ptr(), "Missing server URL",
				"Server %q needs \"url\" (its base URL) or \"ready\" (a URL polled until it answers), so that benchmarks know where it listens.", s.Name)
		}
	} else {
		attr := attrs["builtin"]
		if d.stringAttr(attr, ctx, &s.Builtin) && !slices.Contains(Builtins, s.Builtin) {
			d.errorf(attr.Expr.Range().Ptr(), "Unknown builtin server",
				"There is no builtin server %q; the builtins are %s.%s", s.Builtin, strings.Join(quoteAll(Builtins), ", "), didYouMean(s.Builtin, Builtins))
		}
		s.BodySize = DefaultBodySize
		if attr := attrs["body_size"]; attr != nil {
			if v, ok := d.eval(attr.Expr, ctx, cty.DynamicPseudoType, "\"body_size\""); ok && !v.IsNull() {
				n, diags := paramValue(param.Param{Name: "body_size", Type: param.Size}, v, attr.Expr.Range())
				d.diags = append(d.diags, diags...)
				if !diags.HasErrors() {
					s.BodySize = n.(int64)
				}
			}
		}
		d.durationAttr(attrs["work"], ctx, mayBeZero, &s.Work)
		s.URL = ops.ServerURLScheme + s.Name
	}

	d.durationAttr(attrs["ready_timeout"], ctx, positive, &s.ReadyTimeout)
	d.durationAttr(attrs["grace"], ctx, mayBeZero, &s.Grace)
	if attr := attrs["stop_signal"]; attr != nil {
		var sig string
		if d.stringAttr(attr, ctx, &sig) {
			sig = strings.TrimPrefix(strings.ToUpper(sig), "SIG")
			if _, ok := LookupStopSignal(sig); ok {
				s.StopSignal = sig
			} else {
				d.errorf(attr.Expr.Range().Ptr(), "Unknown stop signal",
					"Servers are stopped with one of %s; got %q.", stopSignalNames(), sig)
			}
		}
	}
	if d.diags.HasErrors() {
		return nil, d.diags
	}
	return s, d.diags
}

// urlAttr decodes an absolute http or https URL.
func (l *loader) urlAttr(attr *hcl.Attribute, ctx *hcl.EvalContext, dst *string) {
	var s string
	if attr == nil || !l.stringAttr(attr, ctx, &s) || s == "" {
		return
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		l.errorf(attr.Expr.Range().Ptr(), "Invalid URL", "The value of %q must be an absolute http:// or https:// URL; got %q.", attr.Name, s)
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
