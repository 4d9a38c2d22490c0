package config

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// ollamaURL reads OLLAMA_HOST with the ollama CLI's own rules, so that lathe
// reaches the server the CLI does: "host", "host:port", ":port" and "[::1]"
// default to port 11434; an explicit http:// or https:// scheme defaults to
// the scheme's port (80, 443); a path is kept, for a server behind a proxy.
// Where the CLI warns and guesses (a port out of range), lathe reports the
// value as wrong; a user and password in it are refused without repeating
// them.
func ollamaURL(v string) (*url.URL, error) {
	s := strings.Trim(strings.TrimSpace(v), "\"'")
	defaultPort := "11434"
	scheme, hostport, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, hostport = "http", s
		if s == "ollama.com" {
			scheme, hostport = "https", "ollama.com:443"
		}
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	default:
		return nil, hostError("the scheme %q is not http or https", scheme)
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	if strings.Contains(hostport, "@") {
		return nil, hostError("a user name or password is not supported in it")
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = "127.0.0.1", defaultPort
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			host = ip.String()
		} else if hostport != "" {
			host = hostport
		}
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return nil, hostError("%q is not a port (0 to 65535)", port)
	}
	if strings.ContainsAny(host, " \t/?#%") {
		return nil, hostError("%q is not a host name", host)
	}
	u := &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port), Path: path}
	if _, err := url.Parse(u.String()); err != nil {
		// url's words ("invalid host: ParseAddr(...)") are Go's, not the
		// user's: the host is what to fix.
		return nil, hostError("%q is not a host name or an IP address", host)
	}
	return u, nil
}

func hostError(format string, args ...any) *Error {
	return &Error{Key: "OLLAMA_HOST", Msg: fmt.Sprintf(format, args...) + ` (use host, host:port or http://host:port)`}
}
