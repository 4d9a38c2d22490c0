package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"lathe/config"
	"lathe/orchestrator/engine"
	"lathe/orchestrator/eval"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
	"lathe/prompts/human"
	"lathe/tools/sandbox"
)

// Bounds of lathe eval's flags.
const (
	maxRepeat = 100
	maxJobs   = 16
)

// evalRun is lathe eval SUITE: it runs a new experiment and shows its
// results.
type evalRun struct {
	f       *Factory
	suite   []string
	models  string // -m: a list of models
	builtin bool
	repeat  int
	jobs    int
}

func newEvalRun(f *Factory) command { return &evalRun{f: f} }

func (c *evalRun) define(fs *pflag.FlagSet) {
	c.f.dirFlag(fs)
	fs.StringVarP(&c.models, "model", "m", "", "")
	fs.BoolVar(&c.builtin, "builtin", false, "")
	fs.IntVar(&c.repeat, "repeat", 1, "")
	fs.IntVar(&c.jobs, "jobs", 1, "")
	fs.StringVar(&c.f.Flags.Sandbox, "sandbox", "", "")
	serverFlags(c.f, fs)
}

// serverFlags are the flags that name the server, which eval's attempts
// are given too.
func serverFlags(f *Factory, fs *pflag.FlagSet) {
	fs.StringVar(&f.Flags.Provider, "provider", "", "")
	fs.StringVar(&f.Flags.BaseURL, "base-url", "", "")
}

// attemptFlags are the flags that name the server, as given, for
// lathe's runs of the attempts: the rest of where the server is (the
// user's config, OLLAMA_HOST) they read as this process did.
func attemptFlags(f *Factory) []string {
	var out []string
	if f.Flags.Provider != "" {
		out = append(out, "--provider", f.Flags.Provider)
	}
	if f.Flags.BaseURL != "" {
		out = append(out, "--base-url", f.Flags.BaseURL)
	}
	return out
}

func (c *evalRun) words(args []string) error { c.suite = args; return nil }

func (c *evalRun) check(fs *pflag.FlagSet) error {
	switch {
	case c.builtin && len(c.suite) > 0:
		return usagef("eval: --builtin runs the built-in suite: give no suite with it")
	case !c.builtin && len(c.suite) != 1:
		return usagef("eval: give one suite directory (or --builtin), e.g. lathe eval ./suite -m qwen3:8b")
	case c.repeat < 1 || c.repeat > maxRepeat:
		return usagef("--repeat must be between 1 and %d", maxRepeat)
	case c.jobs < 1 || c.jobs > maxJobs:
		return usagef("--jobs must be between 1 and %d", maxJobs)
	}
	if err := checkSandbox(fs, c.f.Flags.Sandbox); err != nil {
		return err
	}
	if !fs.Changed("model") {
		return nil // the model lathe would use (see defaultModel)
	}
	_, err := evalModels(c.models)
	return err
}

// experimentIDs checks the number of ids an eval subcommand takes: one at most, or
// exactly want.
func experimentIDs(name string, args []string, want int) error {
	switch {
	case want == 2 && len(args) != 2:
		return usagef("eval compare: give two experiment ids, e.g. lathe eval compare 3 4")
	case want == 1 && len(args) > 1:
		return usagef("%s: one experiment id at most, not %q", name, strings.Join(args, " "))
	}
	return nil
}

// checkIDs checks that the experiment ids are numbers.
func checkIDs(name string, args []string) error {
	for _, id := range args {
		if n, err := strconv.ParseInt(id, 10, 64); err != nil || n < 1 {
			return usagef("%s: %q is not an experiment id (a number, as lathe eval show prints)", name, id)
		}
	}
	return nil
}

// evalModels splits -m's list of models.
func evalModels(list string) ([]string, error) {
	var models []string
	for _, m := range strings.Split(list, ",") {
		m = strings.TrimSpace(m)
		switch {
		case m == "":
			return nil, usagef("-m: an empty model name in %q", list)
		case slices.Contains(models, m):
			return nil, usagef("-m: %s is named twice", m)
		}
		models = append(models, m)
	}
	return models, nil
}

func (c *evalRun) run(ctx context.Context) error {
	f := c.f
	loaded, err := f.Config()
	if err != nil {
		return err
	}
	suite, cleanup, err := openSuite(c.builtin, c.suite)
	if err != nil {
		return err
	}
	defer cleanup()
	if len(suite.Tasks) == 0 {
		for _, b := range suite.Bad {
			fmt.Fprintf(f.ErrOut, "lathe: %s\n", human.Visible(b.Error()))
		}
		return usagef("eval: no task of %s can be read", suite.Name)
	}
	db, err := f.Store(ctx)
	if err != nil {
		return err
	}
	models, _ := evalModels(c.models)
	if c.models == "" {
		m, err := defaultModel(ctx, loaded.Config)
		if err != nil {
			return err
		}
		fmt.Fprintf(f.ErrOut, "lathe: eval: model %s, the one lathe would use (-m names others)\n", m)
		models = []string{m}
	}
	// Attempts run with --yes: where commands cannot be confined, they
	// are refused; said once here, not in every attempt's output.
	yes := loaded.Config
	yes.Approval.All = true
	if _, w := engine.Confinement(yes, f.Dir, f.Env.get); w != "" {
		f.warn(w)
	}
	r, err := runner(f, loaded.Config, db)
	if err != nil {
		return err
	}
	id, err := r.Start(ctx, eval.Plan{Suite: suite, Models: models, Repeat: c.repeat, Jobs: c.jobs,
		Sandbox: loaded.Config.Sandbox.Mode, Version: versionLine(debug.ReadBuildInfo())})
	return evalEnd(ctx, f, db, id, err)
}

// evalEnd shows experiment id once run (err is how running it went).
func evalEnd(ctx context.Context, f *Factory, db *sqlite.DB, id int64, err error) error {
	if id == 0 {
		return err
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(f.ErrOut, "lathe: experiment %d interrupted: lathe eval resume %d runs what is left\n", id, id)
		return err
	}
	if err != nil {
		return fmt.Errorf("experiment %d: %w", id, err)
	}
	e, err := db.Experiment(context.WithoutCancel(ctx), id)
	if err != nil {
		return err
	}
	fmt.Fprintln(f.Out)
	return eval.Show(f.Out, e, time.Now())
}

// defaultModel is the model lathe would use, as the other commands
// choose it: the config's (-m, LATHE_MODEL, a file), else the server's
// newest local model with tool support.
func defaultModel(ctx context.Context, cfg config.Config) (string, error) {
	if cfg.Model != "" {
		return cfg.Model, nil
	}
	info, err := engine.OllamaClient(cfg, cfg.OllamaURL).Model(ctx, "")
	if err != nil {
		return "", err
	}
	return info.Name, nil
}

// runner is the experiment runner, wired: its store, the server's models,
// lathe itself to run attempts with.
func runner(f *Factory, cfg config.Config, db *sqlite.DB) (*eval.Runner, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("eval: find lathe's executable: %w", err)
	}
	be, err := engine.NewBackend(cfg)
	if err != nil {
		return nil, err
	}
	// The check runs the model's code: in the sandbox, as the model's
	// commands did.
	policyFor := func(dir string) (sandbox.Policy, bool) {
		conf, _ := engine.Confinement(cfg, dir, f.Env.get)
		if conf == nil || conf.Refused != nil || conf.Policy.Mode == sandbox.Off {
			return sandbox.Policy{}, false
		}
		return conf.Policy, true
	}
	r := &eval.Runner{
		Store:    db,
		Models:   &serverModels{p: be.Provider, infos: map[string]provider.ModelInfo{}},
		Lathe:    eval.Lathe{Exe: exe, Args0: "lathe", Env: f.Env.list, Flags: attemptFlags(f)},
		Check:    eval.ConfinedCheck(exe, policyFor),
		Progress: eval.NewProgress(f.ErrOut, isTerminal(f.ErrOut)),
	}
	if dir := config.DataDir(f.Env.get); dir != "" {
		// Beside the database: each attempt's ATIF trajectory.
		r.Trajectories = filepath.Join(dir, "trajectories")
	}
	return r, nil
}

// openSuite reads the suite to run: the built-in one, written to a
// temporary directory that cleanup removes, or the one named.
func openSuite(builtin bool, args []string) (*eval.Suite, func(), error) {
	if builtin || args[0] == eval.BuiltinName && !isDir(args[0]) {
		dir, err := os.MkdirTemp("", "lathe-eval-builtin-")
		if err != nil {
			return nil, nil, err
		}
		cleanup := func() { os.RemoveAll(dir) }
		s, err := eval.Builtin(dir)
		if err != nil {
			cleanup()
			return nil, nil, err
		}
		return s, cleanup, nil
	}
	s, err := eval.LoadSuite(args[0])
	if err != nil {
		return nil, nil, usageError{err.Error()}
	}
	return s, func() {}, nil
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

// experiment loads the experiment of id (the latest when "") from db,
// which is nil when nothing was ever saved.
func experiment(ctx context.Context, db *sqlite.DB, id string) (session.Experiment, error) {
	if db == nil {
		return session.Experiment{}, usagef("no experiment yet: run one with lathe eval SUITE -m MODEL")
	}
	var n int64
	var err error
	if id == "" {
		n, err = db.LatestExperiment(ctx)
		if errors.Is(err, session.ErrNoExperiment) {
			return session.Experiment{}, usagef("no experiment yet: run one with lathe eval SUITE -m MODEL")
		}
	} else {
		n, _ = strconv.ParseInt(id, 10, 64)
	}
	if err != nil {
		return session.Experiment{}, err
	}
	e, err := db.Experiment(ctx, n)
	if errors.Is(err, session.ErrNoExperiment) {
		return e, usagef("no experiment %d", n)
	}
	return e, err
}

// evalShow is lathe eval show [ID]: an experiment's results (the
// latest's).
type evalShow struct {
	f         *Factory
	id        []string
	json, csv bool
	html      string // --html FILE: the page of charts written there too
}

func newEvalShow(f *Factory) command { return &evalShow{f: f} }

func (c *evalShow) define(fs *pflag.FlagSet) {
	c.f.dirFlag(fs)
	fs.BoolVar(&c.json, "json", false, "")
	fs.BoolVar(&c.csv, "csv", false, "")
	fs.StringVar(&c.html, "html", "", "")
}

func (c *evalShow) words(args []string) error {
	c.id = args
	return experimentIDs("eval show", args, 1)
}

func (c *evalShow) check(*pflag.FlagSet) error {
	if err := checkIDs("eval show", c.id); err != nil {
		return err
	}
	if c.json && c.csv {
		return usagef("eval show: --json and --csv cannot go together")
	}
	return nil
}

func (c *evalShow) run(ctx context.Context) error {
	db, err := c.f.Saved(ctx)
	if err != nil {
		return err
	}
	e, err := experiment(ctx, db, first(c.id))
	if err != nil {
		return err
	}
	if c.html != "" {
		var text bytes.Buffer
		eval.Show(&text, e, time.Now())
		title := fmt.Sprintf("lathe eval: experiment %d", e.ID)
		if err := writeHTML(c.html, title, text.String(), eval.ShowCharts(e, time.Now())); err != nil {
			return err
		}
	}
	switch {
	case c.json:
		return eval.ShowJSON(c.f.Out, e, time.Now())
	case c.csv:
		return eval.ShowCSV(c.f.Out, e, time.Now())
	}
	return eval.Show(c.f.Out, e, time.Now())
}

// writeHTML writes the page of charts to path.
func writeHTML(path, title, text string, charts []eval.Chart) error {
	var page bytes.Buffer
	if err := eval.WriteHTML(&page, title, text, charts); err != nil {
		return err
	}
	if err := os.WriteFile(path, page.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--html: %w", err)
	}
	return nil
}

// evalCompare is lathe eval compare A B: what changed, task by task.
type evalCompare struct {
	f    *Factory
	ids  []string
	html string
}

func newEvalCompare(f *Factory) command { return &evalCompare{f: f} }

func (c *evalCompare) define(fs *pflag.FlagSet) {
	c.f.dirFlag(fs)
	fs.StringVar(&c.html, "html", "", "")
}

func (c *evalCompare) words(args []string) error {
	c.ids = args
	return experimentIDs("eval compare", args, 2)
}

func (c *evalCompare) check(*pflag.FlagSet) error {
	if err := checkIDs("eval compare", c.ids); err != nil {
		return err
	}
	if a, b := strings.TrimLeft(c.ids[0], "0"), strings.TrimLeft(c.ids[1], "0"); a == b {
		return usagef("eval compare: %s and %s are the same experiment: compare it with another", c.ids[0], c.ids[1])
	}
	return nil
}

func (c *evalCompare) run(ctx context.Context) error {
	db, err := c.f.Saved(ctx)
	if err != nil {
		return err
	}
	a, err := experiment(ctx, db, c.ids[0])
	if err != nil {
		return err
	}
	b, err := experiment(ctx, db, c.ids[1])
	if err != nil {
		return err
	}
	var text bytes.Buffer
	if err := eval.Compare(&text, a, b, time.Now()); err != nil {
		return usageError{err.Error()}
	}
	if c.html != "" {
		title := fmt.Sprintf("lathe eval: experiment %d, then %d", a.ID, b.ID)
		if err := writeHTML(c.html, title, text.String(), eval.CompareCharts(a, b, time.Now())); err != nil {
			return err
		}
	}
	_, err = c.f.Out.Write(text.Bytes())
	return err
}

// evalResume is lathe eval resume [ID]: it runs again the attempts of an
// experiment that have no result.
type evalResume struct {
	f  *Factory
	id []string
}

func newEvalResume(f *Factory) command { return &evalResume{f: f} }

func (c *evalResume) define(fs *pflag.FlagSet) {
	c.f.dirFlag(fs)
	serverFlags(c.f, fs)
}

func (c *evalResume) words(args []string) error {
	c.id = args
	return experimentIDs("eval resume", args, 1)
}

func (c *evalResume) check(*pflag.FlagSet) error { return checkIDs("eval resume", c.id) }

func (c *evalResume) run(ctx context.Context) error {
	f := c.f
	db, err := f.Saved(ctx)
	if err != nil {
		return err
	}
	e, err := experiment(ctx, db, first(c.id))
	if err != nil {
		return err
	}
	loaded, err := f.Config()
	if err != nil {
		return err
	}
	var args []string
	if e.Suite != eval.BuiltinName {
		args = []string{e.Suite}
	}
	suite, cleanup, err := openSuite(e.Suite == eval.BuiltinName, args)
	if err != nil {
		return err
	}
	defer cleanup()
	r, err := runner(f, loaded.Config, db)
	if err != nil {
		return err
	}
	ran, running, err := r.Resume(ctx, e.ID, suite)
	if errors.Is(err, eval.ErrTaskChanged) {
		return usageError{err.Error()}
	}
	if err == nil && ran == 0 {
		msg := fmt.Sprintf("experiment %d: nothing to resume", e.ID)
		if running > 0 {
			msg += fmt.Sprintf(": %s still running, alive in the last %s (another lathe eval?)",
				human.Plural(running, "attempt"), eval.StaleAfter)
		}
		fmt.Fprintln(f.ErrOut, "lathe: "+msg)
	}
	return evalEnd(ctx, f, db, e.ID, err)
}

func first(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

// serverModels asks the server (Ollama, an OpenAI-compatible one, the
// hosts) about the models of an experiment.
type serverModels struct {
	p     provider.Provider
	infos map[string]provider.ModelInfo
}

func (m *serverModels) Describe(ctx context.Context, name string) (session.ExperimentModel, error) {
	info, err := m.p.Model(ctx, name)
	if err != nil {
		return session.ExperimentModel{}, err
	}
	m.infos[name] = info
	return session.ExperimentModel{Name: name, ParameterSize: info.ParameterSize, Quantization: info.Quantization,
		NumCtx: info.NumCtx}, nil
}

func (m *serverModels) Load(ctx context.Context, name string) error {
	info, ok := m.infos[name]
	if !ok {
		if _, err := m.Describe(ctx, name); err != nil {
			return err
		}
		info = m.infos[name]
	}
	srv, ok := m.p.(provider.Server)
	if !ok {
		return nil // the server loads what it serves
	}
	return srv.Preload(ctx, info)
}
