package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/provider/openai/openaitest"
	"lathe/orchestrator/trajectory"
	"lathe/tools/lsp/lsptest"
	"lathe/tools/mcp/mcptest"
	"lathe/tools/sandbox"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.Main(os.Args[2:])) // lathe's helper, as main runs it
	}
	testscript.Main(m, map[string]func(){"lathe": lathe, "fakemcp": mcptest.Main, "fakebrowser": fakeBrowser,
		"fakelsp": lsptest.Main, "lathe-conformance": conformanceClient})
}

// lathe is the command as main.go runs it: signals, Run, one exit.
func lathe() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ())
	stop()
	os.Exit(code)
}

// TestScripts runs the end-to-end scripts in testdata/script: each runs
// the lathe command against a scripted fake Ollama and checks stdout,
// stderr, the exit code and the files left behind.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			// The home and config directories are outside the working
			// directory, as they would be: the sandbox keeps commands from
			// lathe's own files, and from creating anything beside them.
			outside := env.WorkDir + ".outside"
			for _, d := range []string{"home", "xdg"} {
				if err := os.MkdirAll(filepath.Join(outside, d), 0o755); err != nil {
					return err
				}
			}
			env.Setenv("HOME", filepath.Join(outside, "home"))
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(outside, "xdg"))
			env.Setenv("OLLAMA_HOST", "127.0.0.1:1") // nothing listens there until "ollama" starts the fake
			env.Setenv("NO_COLOR", "1")
			env.Values[tbKey{}] = env.T()
			env.Values[serverKey{}] = &serverSlot{}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"ollama":          cmdOllama,
			"ollama-requests": cmdOllamaRequests,
			"openai":          cmdOpenAI,
			"openai-requests": cmdOpenAIRequests,
			"ollama-wait":     cmdOllamaWait,
			"exitcode":        cmdExitCode,
			"waitfile":        cmdWaitFile,
			"mkfifo":          cmdMkfifo,
			"corrupt":         cmdCorrupt,
			"mkimage":         cmdMkimage,
			"ollama-images":   cmdOllamaImages,
			"oauthserver":     cmdOAuthServer,
			"atif":            cmdATIF,
		},
	})
}

type (
	tbKey     struct{}
	serverKey struct{}
)

// cmdOllama starts a fake Ollama serving the replies in a JSON script file
// and points OLLAMA_HOST at it:
//
//	ollama [-version=V] SCRIPT [MODEL[=CAP,CAP...][+spill|+cpu]]...
//
// With no MODEL, qwen3:8b with tools is installed. Scripted replies left
// unused fail the test. -version makes the server say it is version V.
func cmdOllama(ts *testscript.TestScript, neg bool, args []string) {
	var opts []ollamatest.Option
	if len(args) > 0 && strings.HasPrefix(args[0], "-version=") {
		opts = append(opts, ollamatest.WithVersion(strings.TrimPrefix(args[0], "-version=")))
		args = args[1:]
	}
	if neg || len(args) < 1 {
		ts.Fatalf("usage: ollama [-version=V] SCRIPT [MODEL[=CAP,...]]...")
	}
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	replies, err := ollamatest.LoadScript(f)
	ts.Check(err)
	if len(args) > 1 {
		var models []ollamatest.Model
		for _, spec := range args[1:] {
			spec, spill := strings.CutSuffix(spec, "+spill")
			spec, cpu := strings.CutSuffix(spec, "+cpu")
			name, caps, ok := strings.Cut(spec, "=")
			m := ollamatest.Model{Name: name}
			switch {
			case spill: // loaded, 10 GiB of it, 8 GiB on the GPU
				m.LoadedSize, m.LoadedVRAM = 10<<30, 8<<30
			case cpu: // loaded, none of it on a GPU: size_vram 0
				m.LoadedSize, m.LoadedVRAM = 72<<20, -1
			}
			if ok {
				m.Capabilities = strings.Split(caps, ",")
			}
			models = append(models, m)
		}
		opts = append(opts, ollamatest.WithModels(models...))
	}
	tb, ok := ts.Value(tbKey{}).(testing.TB)
	if !ok {
		ts.Fatalf("no testing.TB in this script")
	}
	srv := ollamatest.New(tb, opts...)
	srv.Script(replies...)
	ts.Setenv("OLLAMA_HOST", srv.URL())
	ts.Value(serverKey{}).(*serverSlot).srv = srv
}

// serverSlot holds the script's fake server for later commands.
type serverSlot struct {
	srv *ollamatest.Server
	oai *openaitest.Server
}

// cmdOpenAI starts a fake OpenAI-compatible server of KIND (llama.cpp,
// vllm, lmstudio, plain) serving the replies in a JSON script file, and
// sets OPENAI_URL to its API root:
//
//	openai [-nojinja] KIND SCRIPT [MODEL[=WINDOW[/TRAINED]]]...
func cmdOpenAI(ts *testscript.TestScript, neg bool, args []string) {
	var opts []openaitest.Option
	if len(args) > 0 && args[0] == "-nojinja" {
		opts, args = append(opts, openaitest.WithoutJinja()), args[1:]
	}
	if neg || len(args) < 2 {
		ts.Fatalf("usage: openai [-nojinja] KIND SCRIPT [MODEL[=WINDOW[/TRAINED]]]...")
	}
	f, err := os.Open(ts.MkAbs(args[1]))
	ts.Check(err)
	defer f.Close()
	replies, err := ollamatest.LoadScript(f)
	ts.Check(err)
	var models []openaitest.Model
	for _, spec := range args[2:] {
		name, window, _ := strings.Cut(spec, "=")
		window, trained, _ := strings.Cut(window, "/")
		n, _ := strconv.Atoi(window)
		tr, _ := strconv.Atoi(trained)
		models = append(models, openaitest.Model{Name: name, Window: n, Trained: tr})
	}
	if len(models) > 0 {
		opts = append(opts, openaitest.WithModels(models...))
	}
	srv := openaitest.New(ts.Value(tbKey{}).(testing.TB), openaitest.Kind(args[0]), opts...)
	srv.Script(replies...)
	ts.Setenv("OPENAI_URL", srv.URL())
	ts.Value(serverKey{}).(*serverSlot).oai = srv
}

// cmdOpenAIRequests writes the bodies of the chat requests the OpenAI
// fake has received to FILE, one JSON object a line.
func cmdOpenAIRequests(ts *testscript.TestScript, neg bool, args []string) {
	slot := ts.Value(serverKey{}).(*serverSlot)
	if neg || len(args) != 1 || slot.oai == nil {
		ts.Fatalf("usage: openai-requests FILE, after openai")
	}
	var b strings.Builder
	for _, body := range slot.oai.Bodies() {
		b.Write(body)
		b.WriteByte('\n')
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}

// cmdOllamaRequests writes the bodies of the chat requests the fake has
// received to FILE, one JSON object a line:
//
//	ollama-requests FILE
func cmdOllamaRequests(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: ollama-requests FILE")
	}
	slot := ts.Value(serverKey{}).(*serverSlot)
	if slot.srv == nil {
		ts.Fatalf("ollama-requests: no fake server started")
	}
	var b strings.Builder
	for _, r := range slot.srv.Requests() {
		if r.Path == "/api/chat" {
			b.Write(r.Body)
			b.WriteByte('\n')
		}
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}

// cmdOllamaWait waits until the fake has N replies hanging (sent their
// chunks and blocked) or N hanging replies cancelled by the client:
//
//	ollama-wait hanging|cancelled N
func cmdOllamaWait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: ollama-wait hanging|cancelled N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	srv := ts.Value(serverKey{}).(*serverSlot).srv
	if srv == nil {
		ts.Fatalf("ollama-wait: no fake server started")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	switch args[0] {
	case "hanging":
		ts.Check(srv.WaitHanging(ctx, n))
	case "cancelled":
		ts.Check(srv.WaitCancelled(ctx, n))
	default:
		ts.Fatalf("ollama-wait: want hanging or cancelled, not %q", args[0])
	}
}

// cmdExitCode runs a command and checks its exit code:
//
//	exitcode CODE COMMAND [ARG]...
//
// Its stdout and stderr are then checked like those of exec.
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode CODE COMMAND [ARG]...")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = exit.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

// cmdWaitFile waits, 20 s at most, until FILE exists: how a script knows
// that a command run by lathe in the background has started.
//
//	waitfile FILE
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	path := ts.MkAbs(args[0])
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(20 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			ts.Fatalf("waitfile: %s never appeared", args[0])
		}
	}
}

// TestInteractiveNeedsATerminal: /dev/null is a character device, not a
// terminal: the interactive mode refuses it with a usage error.
func TestInteractiveNeedsATerminal(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	var stderr strings.Builder
	home := t.TempDir()
	code := Run(t.Context(), nil, null, null, &stderr, []string{"HOME=" + home})
	if code != exitUsage || !strings.Contains(stderr.String(), "the interactive mode needs a terminal") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// cmdMkfifo makes a FIFO:
//
//	mkfifo PATH
func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkfifo PATH")
	}
	ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o600))
}

// cmdCorrupt damages a database: it overwrites the page of FILE that holds
// TEXT with bytes no page holds, as a failing disk would:
//
//	corrupt FILE TEXT
func cmdCorrupt(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: corrupt FILE TEXT")
	}
	path := ts.MkAbs(args[0])
	data, err := os.ReadFile(path)
	ts.Check(err)
	at := bytes.Index(data, []byte(args[1]))
	if at < 0 || len(data) < 100 {
		ts.Fatalf("corrupt: %q is not in %s", args[1], args[0])
	}
	size := int(binary.BigEndian.Uint16(data[16:18])) // the page size, in the database header
	if size == 1 {
		size = 65536
	}
	page := at / size * size
	if page == 0 {
		ts.Fatalf("corrupt: %q is on the first page, which holds the schema", args[1])
	}
	for i := page; i < page+size && i < len(data); i++ {
		data[i] = 0xA5
	}
	ts.Check(os.WriteFile(path, data, 0o600))
}

// cmdMkimage writes a WIDTH×HEIGHT gradient image, a PNG, a JPEG or a GIF
// by PATH's extension; -cut writes only the first half of its bytes, a
// damaged file:
//
//	mkimage [-cut] PATH WIDTH HEIGHT
func cmdMkimage(ts *testscript.TestScript, neg bool, args []string) {
	cut := len(args) > 0 && args[0] == "-cut"
	if cut {
		args = args[1:]
	}
	if neg || len(args) != 3 {
		ts.Fatalf("usage: mkimage [-cut] PATH WIDTH HEIGHT")
	}
	w, err := strconv.Atoi(args[1])
	ts.Check(err)
	h, err := strconv.Atoi(args[2])
	ts.Check(err)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	var buf bytes.Buffer
	switch strings.ToLower(filepath.Ext(args[0])) {
	case ".jpg", ".jpeg":
		err = jpeg.Encode(&buf, img, nil)
	case ".gif":
		err = gif.Encode(&buf, img, nil)
	default:
		err = png.Encode(&buf, img)
	}
	ts.Check(err)
	data := buf.Bytes()
	if cut {
		data = data[:len(data)/2]
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o644))
}

// cmdOllamaImages writes, for each chat request with messages the fake
// received, a file DIR/N (N from 1) describing the images it carried, one
// line each: whether the model could see them, their format, decoded size
// and the start of their SHA-256:
//
//	seen png 1568x1176 3f2a9c1b04d2
//
// so that cmp can tell two requests sent the same bytes.
//
//	ollama-images DIR
func cmdOllamaImages(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: ollama-images DIR")
	}
	srv := ts.Value(serverKey{}).(*serverSlot).srv
	if srv == nil {
		ts.Fatalf("ollama-images: no fake server started")
	}
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	n := 0
	for _, r := range srv.Requests() {
		if r.Path != "/api/chat" || r.PromptTokens == 0 {
			continue
		}
		n++
		var b strings.Builder
		for _, data := range r.Images {
			seen := "dropped"
			if r.ImagesSeen {
				seen = "seen"
			}
			cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
			if err != nil {
				format = "undecodable"
			}
			sum := sha256.Sum256(data)
			fmt.Fprintf(&b, "%s %s %dx%d %x\n", seen, format, cfg.Width, cfg.Height, sum[:6])
		}
		ts.Check(os.WriteFile(filepath.Join(dir, strconv.Itoa(n)), []byte(b.String()), 0o644))
	}
}

// cmdATIF checks that a file is a valid ATIF trajectory:
//
//	atif FILE
func cmdATIF(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: atif FILE")
	}
	errs := trajectory.Validate([]byte(ts.ReadFile(args[0])))
	switch {
	case neg && errs == nil:
		ts.Fatalf("%s is a valid ATIF trajectory", args[0])
	case !neg && errs != nil:
		ts.Fatalf("%s is not a valid ATIF trajectory:\n%v", args[0], errors.Join(errs...))
	}
}
