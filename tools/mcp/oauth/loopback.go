package oauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// callbackPath is where the browser comes back to lathe.
const callbackPath = "/callback"

// loopback is the listener on 127.0.0.1 the authorization server sends
// the browser back to (RFC 8252, section 7.3), with the code.
type loopback struct {
	srv  *http.Server
	ln   net.Listener
	back chan callbackResult // the first answer
	name string
}

type callbackResult struct {
	res *auth.AuthorizationResult
	err error
}

// listenLoopback listens on a free port of 127.0.0.1.
func listenLoopback(name string) (*loopback, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for the browser's return: %w", err)
	}
	l := &loopback{ln: ln, back: make(chan callbackResult, 1), name: name}
	l.srv = &http.Server{Handler: http.HandlerFunc(l.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = l.srv.Serve(ln) }()
	return l, nil
}

// redirectURL is the redirect URI lathe registers and sends.
func (l *loopback) redirectURL() string {
	return fmt.Sprintf("http://%s%s", l.ln.Addr(), callbackPath)
}

func (l *loopback) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != callbackPath {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	var res callbackResult
	page := "lathe is authorized with " + l.name + ". You may close this tab."
	if code := q.Get("error"); code != "" {
		why := code
		if d := q.Get("error_description"); d != "" {
			why += ": " + d
		}
		res.err = fmt.Errorf("the authorization server refused: %s", why)
		page = "lathe was not authorized with " + l.name + ": " + why
	} else if q.Get("code") == "" {
		res.err = errors.New("the browser came back without a code")
		page = "lathe got no code back: try lathe mcp login " + l.name + " again."
	} else {
		res.res = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
	}
	select {
	case l.back <- res:
	default: // answered already: only the first counts
		page = "lathe has its answer already; you may close this tab."
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!doctype html><title>lathe</title><p>%s</p>\n", html.EscapeString(page))
}

// wait waits, within ctx, for the browser to come back.
func (l *loopback) wait(ctx context.Context) (*auth.AuthorizationResult, error) {
	select {
	case r := <-l.back:
		return r.res, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("the browser did not come back: %w", context.Cause(ctx))
	}
}

func (l *loopback) close() { _ = l.srv.Close() }
