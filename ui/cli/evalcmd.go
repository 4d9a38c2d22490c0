package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"lathe/config"
	"lathe/orchestrator/eval"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama"
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

// evalCommand reads the words after "eval": show [ID], compare A B,
// resume [ID], or the suite.
func (cmd *command) evalCommand(words []string) error {
	cmd.sub = "eval"
	if len(words) > 0 {
		switch words[0] {
		case "show", "resume":
			cmd.sub, cmd.evalArgs = "eval "+words[0], words[1:]
			if len(cmd.evalArgs) > 1 {
				return usagef("eval %s: one experiment id at most, not %q", words[0], strings.Join(cmd.evalArgs, " "))
			}
			return nil
		case "compare":
			cmd.sub, cmd.evalArgs = "eval compare", words[1:]
			if len(cmd.evalArgs) != 2 {
				return usagef("eval compare: give two experiment ids, e.g. lathe eval compare 3 4")
			}
			return nil
		}
	}
	cmd.evalArgs = words
	return nil
}

// evalFlags checks lathe eval's arguments and flags.
func (cmd *command) evalFlags(fs *pflag.FlagSet) error {
	for _, id := range cmd.evalArgs {
		if cmd.sub == "eval" {
			break
		}
		if n, err := strconv.ParseInt(id, 10, 64); err != nil || n < 1 {
			return usagef("%s: %q is not an experiment id (a number, as lathe eval show prints)", cmd.sub, id)
		}
	}
	switch cmd.sub {
	case "eval show":
		if cmd.json && cmd.csv {
			return usagef("eval show: --json and --csv cannot go together")
		}
		return nil
	case "eval compare", "eval resume":
		return nil
	}
	switch {
	case cmd.builtin && len(cmd.evalArgs) > 0:
		return usagef("eval: --builtin runs the built-in suite: give no suite with it")
	case !cmd.builtin && len(cmd.evalArgs) != 1:
		return usagef("eval: give one suite directory (or --builtin), e.g. lathe eval ./suite -m qwen3:8b")
	case strings.TrimSpace(cmd.flags.Model) == "":
		return usagef("eval: say which models with -m, e.g. -m qwen3:8b,devstral")
	case cmd.repeat < 1 || cmd.repeat > maxRepeat:
		return usagef("--repeat must be between 1 and %d", maxRepeat)
	case cmd.jobs < 1 || cmd.jobs > maxJobs:
		return usagef("--jobs must be between 1 and %d", maxJobs)
	case fs.Changed("sandbox") && !slices.Contains([]string{"workspace-write", "read-only", "off"}, cmd.flags.Sandbox):
		return usagef("--sandbox: unknown mode %q: use workspace-write, read-only or off", cmd.flags.Sandbox)
	}
	_, err := evalModels(cmd.flags.Model)
	return err
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

// eval runs lathe eval and its subcommands.
func (cmd command) eval(ctx context.Context, stdout, stderr io.Writer) error {
	switch cmd.sub {
	case "eval show":
		return cmd.evalShow(ctx, stdout)
	case "eval compare":
		return cmd.evalCompare(ctx, stdout)
	case "eval resume":
		return cmd.evalResume(ctx, stdout, stderr)
	}
	return cmd.evalRun(ctx, stdout, stderr)
}

// evalRun runs a new experiment and shows its results.
func (cmd command) evalRun(ctx context.Context, stdout, stderr io.Writer) error {
	loaded, err := config.Load(config.Sources{Getenv: cmd.env.get, ProjectDir: cmd.dir, Flags: config.Flags{Sandbox: cmd.flags.Sandbox}})
	if err != nil {
		return err
	}
	suite, cleanup, err := openSuite(cmd.builtin, cmd.evalArgs)
	if err != nil {
		return err
	}
	defer cleanup()
	if len(suite.Tasks) == 0 {
		for _, b := range suite.Bad {
			fmt.Fprintf(stderr, "lathe: %v\n", b)
		}
		return usagef("eval: no task of %s can be read", suite.Name)
	}
	db, err := openStore(ctx, cmd.env.get)
	if err != nil {
		return err
	}
	defer db.Close()
	models, _ := evalModels(cmd.flags.Model)
	// Attempts run with --yes: where commands cannot be confined, they
	// are refused; said once here, not in every attempt's output.
	yes := loaded.Config
	yes.Approval.All = true
	if _, w := cmd.confinement(yes, cmd.dir); w != "" {
		warn(stderr, w)
	}
	r, err := cmd.runner(loaded.Config, db, stderr)
	if err != nil {
		return err
	}
	id, err := r.Start(ctx, eval.Plan{Suite: suite, Models: models, Repeat: cmd.repeat, Jobs: cmd.jobs,
		Sandbox: loaded.Config.Sandbox.Mode, Version: versionLine(debug.ReadBuildInfo())})
	return cmd.evalEnd(ctx, db, id, err, stdout, stderr)
}

// evalEnd shows experiment id once run (err is how running it went).
func (cmd command) evalEnd(ctx context.Context, db *sqlite.DB, id int64, err error, stdout, stderr io.Writer) error {
	if id == 0 {
		return err
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "lathe: experiment %d interrupted: lathe eval resume %d runs what is left\n", id, id)
		return err
	}
	if err != nil {
		return fmt.Errorf("experiment %d: %w", id, err)
	}
	e, err := db.Experiment(context.WithoutCancel(ctx), id)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	return eval.Show(stdout, e, time.Now())
}

// runner is the experiment runner, wired: its store, the server's models,
// lathe itself to run attempts with.
func (cmd command) runner(cfg config.Config, db *sqlite.DB, stderr io.Writer) (*eval.Runner, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("eval: find lathe's executable: %w", err)
	}
	client := ollamaClient(cfg, cfg.OllamaURL)
	// The check runs the model's code: in the sandbox, as the model's
	// commands did.
	policyFor := func(dir string) (sandbox.Policy, bool) {
		conf, _ := cmd.confinement(cfg, dir)
		if conf == nil || conf.Refused != nil || conf.Policy.Mode == sandbox.Off {
			return sandbox.Policy{}, false
		}
		return conf.Policy, true
	}
	return &eval.Runner{
		Store:    db,
		Models:   &serverModels{c: client, infos: map[string]provider.ModelInfo{}},
		Lathe:    eval.Lathe{Exe: exe, Args0: "lathe", Env: cmd.env.list},
		Check:    eval.ConfinedCheck(exe, policyFor),
		Progress: eval.NewProgress(stderr, isTerminal(stderr)),
	}, nil
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

// openStore opens (or creates) the database experiments are kept in.
func openStore(ctx context.Context, getenv func(string) string) (*sqlite.DB, error) {
	path, err := storePath(getenv)
	if err != nil {
		return nil, err
	}
	return sqlite.Open(ctx, path, storeOptions())
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

// evalShow runs lathe eval show.
func (cmd command) evalShow(ctx context.Context, stdout io.Writer) error {
	db, err := openSaved(ctx, cmd.env.get)
	if err != nil {
		return err
	}
	if db != nil {
		defer db.Close()
	}
	e, err := experiment(ctx, db, first(cmd.evalArgs))
	if err != nil {
		return err
	}
	switch {
	case cmd.json:
		return eval.ShowJSON(stdout, e, time.Now())
	case cmd.csv:
		return eval.ShowCSV(stdout, e, time.Now())
	}
	return eval.Show(stdout, e, time.Now())
}

// evalCompare runs lathe eval compare.
func (cmd command) evalCompare(ctx context.Context, stdout io.Writer) error {
	db, err := openSaved(ctx, cmd.env.get)
	if err != nil {
		return err
	}
	if db != nil {
		defer db.Close()
	}
	a, err := experiment(ctx, db, cmd.evalArgs[0])
	if err != nil {
		return err
	}
	b, err := experiment(ctx, db, cmd.evalArgs[1])
	if err != nil {
		return err
	}
	if err := eval.Compare(stdout, a, b, time.Now()); err != nil {
		return usageError{err.Error()}
	}
	return nil
}

// evalResume runs lathe eval resume.
func (cmd command) evalResume(ctx context.Context, stdout, stderr io.Writer) error {
	db, err := openSaved(ctx, cmd.env.get)
	if err != nil {
		return err
	}
	if db != nil {
		defer db.Close()
	}
	e, err := experiment(ctx, db, first(cmd.evalArgs))
	if err != nil {
		return err
	}
	loaded, err := config.Load(config.Sources{Getenv: cmd.env.get, ProjectDir: cmd.dir})
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
	r, err := cmd.runner(loaded.Config, db, stderr)
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
		fmt.Fprintln(stderr, "lathe: "+msg)
	}
	return cmd.evalEnd(ctx, db, e.ID, err, stdout, stderr)
}

func first(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

// serverModels asks the Ollama server about the models of an experiment.
type serverModels struct {
	c     *ollama.Client
	infos map[string]provider.ModelInfo
}

func (m *serverModels) Describe(ctx context.Context, name string) (session.ExperimentModel, error) {
	info, err := m.c.Model(ctx, name)
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
	return m.c.Preload(ctx, info)
}
