package ops

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/specrun/specrun/param"
)

// An exec benchmark may name the spec's servers in its commands, to time
// a client of its own (wrk, ab, a test suite) against them: a builtin
// server's URL reads "specrun-server://NAME" when the spec is loaded, and
// is replaced by the server's real base URL once it has started; a command
// server's URL is its own from the start. Either way the server runs
// while the benchmark does.

// execStrings are the exec parameters that may hold a server's URL.
func execStrings(p param.Values) []string {
	out := append([]string{p.String("shell"), p.String("setup"), p.String("prepare"), p.String("cleanup")}, p.Strings("command")...)
	env := p.StringMap("env")
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, env[k])
	}
	return out
}

// execServers lists the server blocks an exec instance names, in the
// order its parameters first name them.
func execServers(p param.Values, owner ServerOwner) []string {
	var names []string
	add := func(name string) {
		if name != "" && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, s := range execStrings(p) {
		for rest := s; ; {
			i := strings.Index(rest, ServerURLScheme)
			if i < 0 {
				break
			}
			rest = rest[i+len(ServerURLScheme):]
			add(serverName(rest))
		}
		if owner == nil {
			continue
		}
		for _, word := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\'' || r == '"' || r == '\t' }) {
			if strings.HasPrefix(word, "http://") || strings.HasPrefix(word, "https://") || strings.HasPrefix(word, "tcp://") {
				if name, ok := owner(word); ok {
					add(name)
				}
			}
		}
	}
	return names
}

// serverName is the name at the start of what follows the scheme: up to
// the first character a block label cannot hold in a URL ("/", ":", a
// quote, a space).
func serverName(s string) string {
	end := strings.IndexFunc(s, func(r rune) bool {
		return !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	})
	if end < 0 {
		return s
	}
	return s[:end]
}

// serverURLs starts (or finds) the instance's servers and returns a
// function that puts their base URLs in place of "specrun-server://NAME".
func serverURLs(env Env) (func(string) string, error) {
	if env == nil || len(env.Servers()) == 0 {
		return func(s string) string { return s }, nil
	}
	// Longest names first: at one position the first pair that matches
	// wins, and server "a" must not take the URL of server "ab".
	names := slices.Clone(env.Servers())
	slices.SortStableFunc(names, func(a, b string) int { return len(b) - len(a) })
	var pairs []string
	for _, name := range names {
		s, err := env.Server(envContext(env), name)
		if err != nil {
			return nil, fmt.Errorf("exec: start server %q: %w", name, err)
		}
		pairs = append(pairs, ServerURLScheme+name, strings.TrimSuffix(s.URL, "/"))
	}
	return strings.NewReplacer(pairs...).Replace, nil
}
