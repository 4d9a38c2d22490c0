// Package mcptest is a small MCP server, written with the official SDK, for
// testing lathe's MCP client over stdio and streamable HTTP: tools that
// echo, add, report progress, hang until cancelled, fail, return images and
// resources, crash the server, change the tool list, and ask the client
// for its roots, the user's input and its model's answer; a prompt, and
// resources.
package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options shape the server.
type Options struct {
	// Padding adds that many more tools, each with a long schema: a
	// server whose schemas do not fit a small budget.
	Padding int
	// Cancelled, when set, is a file the hang tool writes "cancelled" to
	// when its call is cancelled.
	Cancelled string
	// Calls, when set, is a file each call appends its tool's name to.
	Calls string
	// PageSize is how many tools a page of the list holds (default 2, so
	// that a client must follow the pages).
	PageSize int
	// Requests adds the tools that send the client requests of its own:
	// roots (the client's roots), ask (a form to fill), ask_url (a URL to
	// open), sample (the client's model answers a message).
	Requests bool
	// RootsChanged, when set, is called when the client says its roots
	// changed.
	RootsChanged func()
}

// PNG is the image the image tool returns.
var PNG = []byte("\x89PNG\r\n\x1a\nfake")

// New returns the server.
func New(opts Options) *sdk.Server {
	if opts.PageSize == 0 {
		opts.PageSize = 2
	}
	so := &sdk.ServerOptions{PageSize: opts.PageSize}
	if opts.Requests {
		// As servers speak it today: from 2026-07-28 on, a server asks
		// the client for input in its results (multi round-trip
		// requests), not in requests of its own.
		so.SupportedProtocolVersions = []string{"2025-11-25", "2025-06-18"}
	}
	if opts.RootsChanged != nil {
		so.RootsListChangedHandler = func(context.Context, *sdk.RootsListChangedRequest) { opts.RootsChanged() }
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "mcptest", Version: "1"}, so)
	add := func(name, desc, schema string, readOnly bool, h func(context.Context, *sdk.CallToolRequest, map[string]any) *sdk.CallToolResult) {
		t := &sdk.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(schema)}
		if readOnly {
			t.Annotations = &sdk.ToolAnnotations{ReadOnlyHint: true}
		}
		s.AddTool(t, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if opts.Calls != "" {
				appendLine(opts.Calls, name)
			}
			var args map[string]any
			_ = json.Unmarshal(req.Params.Arguments, &args)
			return h(ctx, req, args), nil
		})
	}
	add("echo", "Echo the text back. It is read-only, and has a second sentence to trim.",
		`{"type":"object","properties":{"text":{"type":"string","description":"What to echo. Anything at all.","examples":["hi"]}},"required":["text"]}`,
		true, func(_ context.Context, _ *sdk.CallToolRequest, a map[string]any) *sdk.CallToolResult {
			return text(fmt.Sprint(a["text"]))
		})
	add("add", "Add two integers.",
		`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}`,
		false, func(_ context.Context, _ *sdk.CallToolRequest, a map[string]any) *sdk.CallToolResult {
			x, _ := a["a"].(float64)
			y, _ := a["b"].(float64)
			return text(strconv.Itoa(int(x + y)))
		})
	add("slow", "Count to three, telling how far it got, then wait to be cancelled.", `{"type":"object"}`, true,
		func(ctx context.Context, req *sdk.CallToolRequest, _ map[string]any) *sdk.CallToolResult {
			for i := 1; i <= 3; i++ {
				_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
					ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: 3, Message: "counting"})
			}
			<-ctx.Done()
			return text("counted to 3")
		})
	add("hang", "Say it started, then never answer.", `{"type":"object"}`, true,
		func(ctx context.Context, req *sdk.CallToolRequest, _ map[string]any) *sdk.CallToolResult {
			_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
				ProgressToken: req.Params.GetProgressToken(), Message: "hanging"})
			<-ctx.Done()
			if opts.Cancelled != "" {
				_ = os.WriteFile(opts.Cancelled, []byte("cancelled"), 0o644)
			}
			return text("too late")
		})
	add("fail", "Fail.", `{"type":"object"}`, true, func(context.Context, *sdk.CallToolRequest, map[string]any) *sdk.CallToolResult {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "the thing is broken"}}}
	})
	add("picture", "Return a picture and a resource.", `{"type":"object"}`, true,
		func(context.Context, *sdk.CallToolRequest, map[string]any) *sdk.CallToolResult {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "here it is"},
				&sdk.ImageContent{Data: PNG, MIMEType: "image/png"},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "a note"}},
			}}
		})
	add("crash", "Stop the server.", `{"type":"object"}`, false,
		func(context.Context, *sdk.CallToolRequest, map[string]any) *sdk.CallToolResult {
			fmt.Fprintln(os.Stderr, "mcptest: crashing as asked")
			os.Exit(3)
			return nil
		})
	add("grow", "Add a tool named extra to the server's list.", `{"type":"object"}`, false,
		func(context.Context, *sdk.CallToolRequest, map[string]any) *sdk.CallToolResult {
			s.AddTool(&sdk.Tool{Name: "extra", Description: "A tool added later.", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("extra"), nil })
			return text("grown")
		})
	if opts.Requests {
		addRequests(add)
	}
	addCatalog(s)
	for i := range opts.Padding {
		props := make([]string, 8)
		for j := range props {
			props[j] = fmt.Sprintf(`"field%d":{"type":"string","description":"A field of record %d that holds one of many values the service knows about."}`, j, i)
		}
		add(fmt.Sprintf("record_%03d", i), fmt.Sprintf("Read record kind %d from the service.", i),
			`{"type":"object","properties":{`+strings.Join(props, ",")+`}}`, true,
			func(context.Context, *sdk.CallToolRequest, map[string]any) *sdk.CallToolResult { return text("record") })
	}
	return s
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

func appendLine(path, line string) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

// Handler serves the server over streamable HTTP.
func Handler(opts Options) http.Handler {
	s := New(opts)
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
}

// Main runs the server on stdin and stdout, as a program: the test binary
// re-executed, or the fakemcp command of the end-to-end scripts. The
// environment shapes it: MCPTEST_PADDING (a number of padding tools),
// MCPTEST_CANCELLED and MCPTEST_CALLS (files, see Options), and
// MCPTEST_START ("crash": exit before answering; "hang": never answer),
// MCPTEST_STARTED (a file written when it starts), MCPTEST_REQUESTS ("1":
// Options.Requests).
func Main() {
	fmt.Fprintln(os.Stderr, "mcptest: started")
	if f := os.Getenv("MCPTEST_STARTED"); f != "" {
		_ = os.WriteFile(f, []byte("started\n"), 0o644)
	}
	switch os.Getenv("MCPTEST_START") {
	case "crash":
		fmt.Fprintln(os.Stderr, "mcptest: cannot start: no database")
		os.Exit(2)
	case "hang":
		_, _ = io.Copy(io.Discard, os.Stdin) // never answer; end with the client
		os.Exit(0)
	}
	padding, _ := strconv.Atoi(os.Getenv("MCPTEST_PADDING"))
	s := New(Options{Padding: padding, Cancelled: os.Getenv("MCPTEST_CANCELLED"), Calls: os.Getenv("MCPTEST_CALLS"),
		Requests: os.Getenv("MCPTEST_REQUESTS") == "1"})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		os.Exit(1)
	}
	os.Exit(0)
}
