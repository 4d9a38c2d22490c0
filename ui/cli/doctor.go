package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/pflag"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/engine"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama"
	"lathe/prompts/human"
	"lathe/tools/lsp"
	"lathe/tools/sandbox"
)

// minOllama is the oldest Ollama lathe runs with: the first that takes
// truncate and shift, without which a conversation too long for the
// window is cut silently.
const minOllama = "0.12.6"

// check is one line of lathe doctor.
type check struct {
	Name   string `json:"check"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	// More are lines that complete Detail.
	More   []string `json:"more,omitempty"`
	Advice string   `json:"advice,omitempty"`
	// Model is the model the check is about, as data for --json: a model
	// installed, the one lathe would use.
	Model *modelFacts `json:"model,omitempty"`
	// fatal: lathe cannot run when this check fails.
	fatal bool
}

// modelFacts are what doctor found of a model, as numbers and lists.
type modelFacts struct {
	Name string `json:"name"`
	// Capabilities as the server lists them; null when it lists none.
	Capabilities []string `json:"capabilities"`
	// Tools says whether lathe can use it: it calls tools.
	Tools bool `json:"tools"`
	// ContextLength is its trained context length, in tokens; NumCtx the
	// window lathe would use with it (the model to use's alone). 0 when
	// not known.
	ContextLength int    `json:"context_length"`
	NumCtx        int    `json:"num_ctx,omitempty"`
	Remote        string `json:"remote,omitempty"`      // the host of a cloud model
	Unavailable   string `json:"unavailable,omitempty"` // why the server cannot describe it
}

// factsOf is the facts of the model info describes; m, when given, is
// how the server lists it.
func factsOf(info provider.ModelInfo, m *provider.ModelSummary) *modelFacts {
	f := &modelFacts{Name: info.Name, Capabilities: info.Capabilities, Tools: info.Lists("tools"),
		ContextLength: info.ContextLength}
	if m != nil {
		f.Name, f.Tools, f.Remote, f.Unavailable = m.Name, m.Tools && m.Broken == "", m.Remote, m.Broken
	}
	return f
}

// doctorCommand is lathe doctor: it checks what lathe needs and says
// what to do about what is missing; it fails (exit 1) when lathe cannot
// run.
type doctorCommand struct {
	f    *Factory
	json bool
}

func newDoctor(f *Factory) command { return &doctorCommand{f: f} }

func (c *doctorCommand) define(fs *pflag.FlagSet) {
	c.f.dirFlag(fs)
	fs.BoolVar(&c.json, "json", false, "")
	fs.StringVarP(&c.f.Flags.Model, "model", "m", "", "")
	fs.StringVar(&c.f.Flags.Provider, "provider", "", "")
	fs.StringVar(&c.f.Flags.BaseURL, "base-url", "", "")
}

func (c *doctorCommand) words(args []string) error  { return noWords("doctor", args) }
func (c *doctorCommand) check(*pflag.FlagSet) error { return nil }

func (c *doctorCommand) run(ctx context.Context) error {
	var checks []check
	add := func(c check) { checks = append(checks, c) }
	loaded, configErr := c.f.Config()
	if configErr != nil {
		// The other checks need no config of the user's: they go on
		// without the files.
		add(check{Name: "config", Detail: configErr.Error(), fatal: true,
			Advice: "fix it; the checks below use the defaults, the environment and the flags"})
		loaded = c.withoutFiles()
	}
	cfg := loaded.Config
	be, err := engine.NewBackend(cfg)
	switch {
	case err != nil:
		add(check{Name: "config", Detail: err.Error(), Advice: "fix the file named", fatal: true})
	case be.Pool != nil:
		checkHosts(ctx, be, cfg, add)
		c.checkEmbedding(ctx, be.Embedder, cfg, add)
	case be.OpenAI != nil:
		checkOpenAI(ctx, be.OpenAI, cfg, add)
		c.checkEmbedding(ctx, be.Embedder, cfg, add)
	default:
		if checkServer(ctx, be.Ollama, cfg, add) {
			c.checkEmbedding(ctx, be.Embedder, cfg, add)
		}
	}
	files := "none (the defaults)"
	if len(loaded.Files) > 0 {
		files = strings.Join(loaded.Files, ", ")
	}
	if configErr == nil {
		add(check{Name: "config", OK: true, Detail: "read: " + files})
	}
	for _, w := range loaded.Warnings {
		add(check{Name: "config", Detail: w})
	}
	c.checkStore(add)
	c.checkSandbox(cfg, add)
	c.checkLSP(cfg, add)
	checkTerminal(c.f.Out, cfg, add)
	return report(c.f.Out, checks, c.json)
}

// withoutFiles is the config of the defaults, the environment and the
// flags, no file read (nor the defaults alone, when the environment is
// wrong too): what the checks after a config error use.
func (c *doctorCommand) withoutFiles() config.Loaded {
	getenv := func(k string) string {
		if k == "XDG_CONFIG_HOME" || k == "HOME" {
			return "" // no user file
		}
		return c.f.Env.get(k)
	}
	loaded, err := config.Load(config.Sources{Getenv: getenv, Flags: c.f.Flags})
	if err != nil {
		return config.Loaded{Config: config.Defaults()}
	}
	return loaded
}

// checkServer checks the server, its version, its models and the model
// lathe would use; it reports whether the server answered.
func checkServer(ctx context.Context, c *ollama.Client, cfg config.Config, add func(check)) bool {
	v, err := c.Version(ctx)
	if err != nil {
		add(check{Name: "ollama", Detail: err.Error(), fatal: true})
		return false
	}
	switch {
	case sourceBuild(v):
		add(check{Name: "ollama", OK: true, Detail: fmt.Sprintf("Ollama %s at %s: a build from source, which does not "+
			"say its version (taken to be new enough)", v, c.URL())})
	case older(v, minOllama):
		add(check{Name: "ollama", Detail: fmt.Sprintf("Ollama %s at %s", v, c.URL()), fatal: true,
			Advice: fmt.Sprintf("lathe needs Ollama %s or newer (older ones cut a conversation too long for the window silently): upgrade it", minOllama)})
	default:
		add(check{Name: "ollama", OK: true, Detail: fmt.Sprintf("Ollama %s at %s", v, c.URL())})
	}
	models, err := c.Models(ctx)
	if err != nil {
		add(check{Name: "models", Detail: err.Error()})
		return true
	}
	if len(models) == 0 {
		add(check{Name: "models", Detail: "no model is installed", Advice: `run "ollama pull ` + ollama.SuggestedModel + `"`, fatal: true})
	}
	for _, m := range models {
		info, _ := c.Model(ctx, m.Name) // the capabilities come with a refusal too
		var what []string
		switch {
		case m.Broken != "":
			what = append(what, "unavailable: "+m.Broken)
		case m.Remote != "":
			what = append(what, "cloud ("+m.Remote+"): not chosen by default")
		}
		what = append(what, capabilityList(info))
		if info.ContextLength > 0 {
			what = append(what, "context "+human.Thousands(info.ContextLength))
		}
		add(check{Name: "model", OK: m.Broken == "" && m.Tools, Detail: m.Name + ": " + strings.Join(what, ", "), Model: factsOf(info, &m)})
	}
	if info, ok := modelToUse(ctx, c, cfg, "the newest local model with tool support", add); ok {
		detail := fmt.Sprintf("%s tokens (options.num_ctx %s", human.Thousands(info.NumCtx), human.Thousands(cfg.Options.NumCtx))
		if info.ContextLength > 0 {
			detail += ", the model's maximum " + human.Thousands(info.ContextLength)
		}
		detail += ")"
		if info.KVBytesPerToken > 0 {
			detail += fmt.Sprintf("; its KV cache takes about %s at 16 bits", human.Bytes(int64(info.NumCtx)*info.KVBytesPerToken))
		}
		add(check{Name: "num_ctx", OK: true, Detail: detail})
	}
	loaded, err := c.Loaded(ctx)
	if err != nil {
		return true
	}
	if len(loaded) == 0 {
		add(check{Name: "loaded", OK: true, Detail: "no model is loaded (the first request loads it)"})
	}
	if onCPU(loaded) {
		var names []string
		for _, l := range loaded {
			names = append(names, fmt.Sprintf("%s with num_ctx %s", l.Name, human.Thousands(l.ContextLength)))
		}
		add(check{Name: "loaded", OK: true, Detail: "the server runs its models on the CPU, none of them in GPU memory (it has no GPU it can use): " +
			strings.Join(names, ", ")})
		return true
	}
	for _, l := range loaded {
		gpu := "all on the GPU"
		ok := l.VRAM >= l.Size
		if !ok {
			gpu = fmt.Sprintf("%s of %s on the GPU, the rest on the CPU", human.Bytes(max(l.VRAM, 0)), human.Bytes(l.Size))
		}
		c := check{Name: "loaded", OK: ok, Detail: fmt.Sprintf("%s with num_ctx %s: %s", l.Name, human.Thousands(l.ContextLength), gpu)}
		if !ok {
			c.Advice = "a smaller num_ctx, or a smaller model, would make every token faster"
		}
		add(c)
	}
	return true
}

// onCPU reports whether the server holds none of the loaded models in GPU
// memory: it has no GPU it can use, and no smaller window would help.
func onCPU(loaded []provider.Loaded) bool {
	return len(loaded) > 0 && !slices.ContainsFunc(loaded, func(l provider.Loaded) bool { return l.VRAM > 0 || l.Size == 0 })
}

// checkEmbedding says whether the code search tool can be offered: the embedding
// model, and how much of the project its index holds. Without one lathe
// runs, without it.
func (c *doctorCommand) checkEmbedding(ctx context.Context, client provider.Embedder, cfg config.Config, add func(check)) {
	if !cfg.Index.Enabled {
		add(check{Name: "embedding", OK: true, Detail: "the code index is off (index.enabled = false): the code search tool is not offered"})
		return
	}
	model, err := client.EmbeddingModel(ctx, cfg.Index.Model)
	if err != nil {
		add(check{Name: "embedding", Detail: err.Error(),
			Advice: "the code search tool, which finds code by what it does, needs one; lathe runs without it"})
		return
	}
	detail := model + ": the code search tool is offered; "
	files, chunks := 0, 0
	indexed := ""
	if db, err := c.f.Saved(ctx); err == nil && db != nil {
		indexed, _ = db.IndexModel(ctx, c.f.Dir)
		files, chunks, _ = db.IndexStats(ctx, c.f.Dir)
	}
	switch {
	case indexed == "":
		detail += "this project has no index yet (the interactive UI builds it while the model is idle; lathe index builds it now)"
	case indexed != model:
		detail += fmt.Sprintf("this project's index was made with %s: it is made anew with %s when next brought up to date", indexed, model)
	default:
		detail += fmt.Sprintf("this project's index holds %s, %s", human.Plural(files, "file"), human.Plural(chunks, "chunk"))
	}
	add(check{Name: "embedding", OK: true, Detail: detail})
}

// capabilityList names the capabilities lathe cares about.
func capabilityList(info provider.ModelInfo) string {
	var out []string
	for _, c := range []string{"tools", "vision", "thinking", "embedding"} {
		if info.Lists(c) {
			out = append(out, c)
		}
	}
	if info.Capabilities == nil {
		return "capabilities not listed"
	}
	if !info.Lists("tools") {
		out = append(out, "no tools")
	}
	return strings.Join(out, " ")
}

// checkStore says where sessions are kept, and how much they take.
func (c *doctorCommand) checkStore(add func(check)) {
	path, err := c.f.StorePath()
	if err != nil {
		add(check{Name: "sessions", Detail: err.Error(), Advice: "sessions will not be saved"})
		return
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		add(check{Name: "sessions", OK: true, Detail: path + " (made when the first session is saved)"})
	case err != nil:
		add(check{Name: "sessions", Detail: err.Error()})
	default:
		add(check{Name: "sessions", OK: true, Detail: fmt.Sprintf("%s, %s", path, human.Bytes(fi.Size()))})
	}
}

// outsideTheSandbox says what lathe starts outside the sandbox, and what
// keeps a command from choosing it.
const outsideTheSandbox = "outside the sandbox: MCP servers the project declares, and yours that run its files, " +
	"start only once trusted with what they run (their files digested; asked again when those change); " +
	"what that code imports from elsewhere in the project is not covered"

// checkSandbox says how commands will be confined here, and what cannot be.
func (c *doctorCommand) checkSandbox(cfg config.Config, add func(check)) {
	conf, warning := engine.Confinement(cfg, c.f.Dir, c.f.Env.get)
	if conf == nil {
		add(check{Name: "sandbox", OK: cfg.Sandbox.Mode == string(sandbox.Off), Detail: warning})
		return
	}
	s := engine.Probe(c.f.Env.get)
	ok := conf.Refused == nil && (s.Confines() || conf.Policy.Mode == sandbox.Off)
	lines := append(s.Describe(conf.Policy), outsideTheSandbox)
	sc := check{Name: "sandbox", OK: ok, Detail: lines[0], More: lines[1:]}
	if warning != "" {
		sc.Advice = warning
	}
	add(sc)
}

// checkLSP says which language servers lathe found, and which it did not.
func (c *doctorCommand) checkLSP(cfg config.Config, add func(check)) {
	trust, trustErr := engine.NewLSPTrust(cfg, c.f.Dir, c.f.Env.get, false)
	m := lsp.New(lsp.Options{Dir: c.f.Dir, Servers: engine.LSPServers(cfg, c.f.Dir, c.f.Env.get), Environ: c.f.Env.list,
		Admit: trust.Admit})
	var found, missing, waiting []string
	for _, f := range m.Found() {
		switch {
		case f.Path == "":
			missing = append(missing, f.Name)
		case f.Why != "":
			waiting = append(waiting, f.Name+" ("+f.Path+")")
		case f.NeedsTrust:
			found = append(found, f.Name+" ("+f.Path+", trusted)")
		default:
			found = append(found, f.Name+" ("+f.Path+")")
		}
	}
	lc := check{Name: "language servers", OK: true, Detail: "found: " + strings.Join(found, ", ")}
	if len(found) == 0 {
		lc.Detail = "none found: edits get no diagnostics"
		lc.Advice = "install gopls, pyright, typescript-language-server, rust-analyzer or clangd, or set [lsp.NAME] command"
	}
	if len(waiting) > 0 {
		lc.More = append(lc.More, "wait for your trust (the project declares them, or they run its files; the UI asks at start, "+
			"--trust-project-lsp starts them for one run): "+strings.Join(waiting, ", "))
	}
	if trustErr != nil {
		lc.More = append(lc.More, "the trust given before could not be read: "+trustErr.Error())
	}
	if len(missing) > 0 {
		lc.More = append(lc.More, "not on PATH: "+strings.Join(missing, ", "))
	}
	if cfg.Navigation.Enabled {
		lc.More = append(lc.More, "navigation tools (definition, references, hover): on, a call waits "+
			cfg.Navigation.Wait.Duration.String()+" at most for its server")
	} else {
		lc.More = append(lc.More, "navigation tools (definition, references, hover): off; [navigation] enabled = true offers them (≈ 343 tokens a request)")
	}
	add(lc)
}

// checkTerminal says what the interactive UI would have to work with.
func checkTerminal(stdout io.Writer, cfg config.Config, add func(check)) {
	out, ok := stdout.(*os.File)
	if !ok || !isTerminal(out) {
		add(check{Name: "terminal", OK: true, Detail: "stdout is not a terminal: the interactive UI needs one (-p works anywhere)"})
		return
	}
	w, h, _ := term.GetSize(out.Fd())
	colour := "colour"
	if cfg.NoColor {
		colour = "no colour (NO_COLOR)"
	}
	c := check{Name: "terminal", OK: w >= 60 && h >= 12, Detail: fmt.Sprintf("%d×%d, %s", w, h, colour)}
	if !c.OK {
		c.Advice = "the interactive UI wants at least 60×12"
	}
	add(c)
}

// useFacts is the facts of the model lathe would use, its window too.
func useFacts(info provider.ModelInfo) *modelFacts {
	f := factsOf(info, nil)
	f.NumCtx = info.NumCtx
	return f
}

// jsonCheck is a check as --json writes it: Fatal marks a failure lathe
// cannot run with.
type jsonCheck struct {
	check
	Fatal bool `json:"fatal,omitempty"`
}

// report prints the checks, one line each, or as a JSON array; it fails
// when a check lathe cannot run without failed, naming those checks.
func report(w io.Writer, checks []check, asJSON bool) error {
	var err error
	if asJSON {
		err = reportJSON(w, checks)
	} else {
		err = reportText(w, checks)
	}
	if err != nil {
		return err
	}
	var failed []string
	for _, c := range checks {
		if c.fatal && !c.OK && !slices.Contains(failed, c.Name) {
			failed = append(failed, c.Name)
		}
	}
	switch {
	case len(failed) == 0:
		return nil
	case asJSON:
		return &stopped{reason: orchestrator.StopError, msg: "cannot run here: " + checkList(failed) + ` failed (the checks with "fatal": true)`}
	}
	lines := "line"
	if len(failed) > 1 {
		lines = "lines"
	}
	return &stopped{reason: orchestrator.StopError, msg: "cannot run here: see the ✗ " + checkList(failed) + " " + lines + " above"}
}

// checkList names checks: "ollama", "ollama and model to use".
func checkList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func reportJSON(w io.Writer, checks []check) error {
	out := make([]jsonCheck, len(checks))
	for i, c := range checks {
		out[i] = jsonCheck{check: c, Fatal: c.fatal && !c.OK}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func reportText(w io.Writer, checks []check) error {
	for _, c := range checks {
		mark := "✓"
		if !c.OK {
			mark = "✗"
		}
		line := fmt.Sprintf("%s %s: %s", mark, c.Name, human.Visible(c.Detail))
		if c.Advice != "" {
			line += " — " + human.Visible(c.Advice)
		}
		for _, more := range c.More {
			line += "\n    " + human.Visible(more)
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

// sourceBuild reports whether v is the version of an Ollama built from
// source without its version stamped in (go build, go run . serve):
// version.Version's default, "0.0.0".
func sourceBuild(v string) bool { return strings.TrimPrefix(v, "v") == "0.0.0" }

// older reports whether version a is older than b ("0.17.4" < "0.18";
// anything not a version counts as new: a build from source).
func older(a, b string) bool {
	pa, pb := strings.Split(strings.TrimPrefix(a, "v"), "."), strings.Split(b, ".")
	for i := range pb {
		if i >= len(pa) {
			return true
		}
		x, err1 := strconv.Atoi(strings.SplitN(pa[i], "-", 2)[0])
		y, err2 := strconv.Atoi(pb[i])
		if err1 != nil || err2 != nil {
			return false
		}
		if x != y {
			return x < y
		}
	}
	return false
}
