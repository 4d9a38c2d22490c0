package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"lathe/orchestrator/session"
	"lathe/orchestrator/trajectory"
	"lathe/prompts"
)

// experimentTasks are the tasks of suite as recorded, with the versions of
// their toolchains; the bad ones, those whose toolchain is missing and
// those that need a container where no runtime answers, skipped with why.
func (r *Runner) experimentTasks(ctx context.Context, suite *Suite) []session.ExperimentTask {
	var out []session.ExperimentTask
	env := &toolchains{probed: map[string]bool{}, found: map[string]string{}}
	var runtime *Runtime
	for _, t := range suite.Tasks {
		skip := env.missing(ctx, t)
		if skip == "" && t.Container != nil {
			if runtime == nil {
				rt, err := r.findRuntime(ctx)
				if err != nil {
					rt = Runtime{Err: err}
				}
				runtime = &rt
			}
			if runtime.Err != nil {
				skip = fmt.Sprintf("needs a container (%s) and %v", t.Container.what(), runtime.Err)
			}
		}
		t.Toolchain = env.versions(ctx, t.Requires)
		spec, _ := json.Marshal(t)
		out = append(out, session.ExperimentTask{Name: t.Name, Spec: string(spec), Digest: t.Digest, Skipped: skip})
	}
	for _, b := range suite.Bad {
		out = append(out, session.ExperimentTask{Name: b.Task, Skipped: b.Error()})
	}
	return out
}

func (r *Runner) findRuntime(ctx context.Context) (Runtime, error) {
	if r.Runtime != nil {
		return r.Runtime(ctx)
	}
	return FindRuntime(ctx)
}

// toolchains finds programs, probes and versions once per experiment.
type toolchains struct {
	probed map[string]bool   // probe → it succeeded
	found  map[string]string // program → its version line
}

// missing says which program or probe task t needs is missing; "" when
// none.
func (tc *toolchains) missing(ctx context.Context, t Task) string {
	for _, prog := range t.Requires {
		if _, err := exec.LookPath(prog); err != nil {
			return fmt.Sprintf("needs %s, which is not installed", prog)
		}
	}
	if len(t.Probe) > 0 {
		key := strings.Join(t.Probe, " ")
		ok, seen := tc.probed[key]
		if !seen {
			pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			cmd := exec.CommandContext(pctx, t.Probe[0], t.Probe[1:]...)
			cmd.Dir = t.Dir
			ok = cmd.Run() == nil
			cancel()
			tc.probed[key] = ok
		}
		if !ok {
			return fmt.Sprintf("needs %s, which is not installed (%s failed)", t.ProbeWhat, key)
		}
	}
	return ""
}

// versions are the version lines of programs, for the record.
func (tc *toolchains) versions(ctx context.Context, programs []string) map[string]string {
	out := map[string]string{}
	for _, prog := range programs {
		v, seen := tc.found[prog]
		if !seen {
			v = versionOf(ctx, prog)
			tc.found[prog] = v
		}
		if v != "" {
			out[prog] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// versionOf is the first line a program prints of its version; "" when it
// says none.
func versionOf(ctx context.Context, prog string) string {
	arg := "--version"
	switch prog {
	case "go":
		arg = "version"
	case "java":
		arg = "-version"
	}
	vctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(vctx, prog, arg).CombinedOutput()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(line)
}

// run runs an attempt: lathe, then the check, and as many tries more as
// the task gives when the check fails; and says how it ended.
func (r *Runner) run(ctx context.Context, e session.Experiment, a session.Attempt, t Task) session.AttemptEnd {
	if t.Container != nil {
		return r.runContainer(ctx, e, a, t)
	}
	d, err := prepareAttempt(r.TempDir, t)
	if err != nil {
		return session.AttemptEnd{State: session.AttemptFailed, FailureReason: session.FailError, Failure: err.Error()}
	}
	defer os.RemoveAll(d.root)
	keep := r.trajectoryPath(e.ID, a.ID)
	next := run{prompt: mapPaths(t.Prompt, t.mapping(d))}
	var (
		runs  []launched
		parts []string
		check *CheckResult
	)
	for try := 1; ; try++ {
		if keep != "" {
			next.trajectory = fmt.Sprintf("%s.try%d", keep, try)
			parts = append(parts, next.trajectory)
		}
		l := r.Lathe.forAttempt(e, a).launch(ctx, t, a.Model, d.work, e.Sandbox, next)
		runs = append(runs, l)
		if l.interrupted || l.err != nil {
			break
		}
		c := r.verify(ctx, t, d)
		if ctx.Err() != nil {
			runs[len(runs)-1].interrupted = true
			check = nil
			break
		}
		check = &c
		if c.Met || try >= max(t.Tries, 1) || l.timedOut || l.result == nil || l.result.SessionID == "" {
			break
		}
		files := []string{}
		if t.Kit != nil {
			files = t.Kit.Files
		}
		next = run{prompt: prompts.PolyglotRetry(c.Output, files), resume: l.result.SessionID}
	}
	end := combine(runs).end(t, check)
	if check != nil {
		end.Reward = check.Reward
	}
	end.Trajectory = keepTrajectory(keep, parts)
	if end.SessionID != "" {
		end.Options, _ = r.Store.RunOptions(context.WithoutCancel(ctx), end.SessionID)
	}
	return end
}

// verify runs t's check in attempt d: its tests put in place, then the
// check, its verdict the reward it wrote when the task has one.
func (r *Runner) verify(ctx context.Context, t Task, d attemptDirs) CheckResult {
	if err := installTests(t, d); err != nil {
		return CheckResult{Exit: -1, Output: err.Error()}
	}
	cmd, env := t.checkCommand(d)
	c := r.checker()(ctx, d.root, cmd, append(checkEnv(r.Lathe.Env, t.Dir), env...), t.CheckTimeout)
	if t.Kit != nil && t.Kit.Reward {
		reward, why := readReward(d)
		c.Reward, c.Met = reward, reward != nil && *reward >= 1
		if why != "" {
			c.Output = strings.TrimSpace(c.Output + "\n(" + why + ")")
		}
	}
	return c
}

// trajectoryPath is where attempt id of experiment exp keeps its
// trajectory; "" when none is kept or its directory cannot be made.
func (r *Runner) trajectoryPath(exp, id int64) string {
	if r.Trajectories == "" {
		return ""
	}
	dir := filepath.Join(r.Trajectories, fmt.Sprint(exp))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ""
	}
	return filepath.Join(dir, fmt.Sprintf("attempt-%d.json", id))
}

// keepTrajectory joins the trajectories of an attempt's runs (parts) into
// keep, removing the parts; it returns keep, or "" when no run wrote one.
func keepTrajectory(keep string, parts []string) string {
	var joined *trajectory.Trajectory
	for _, p := range parts {
		b, err := os.ReadFile(p)
		os.Remove(p)
		if err != nil {
			continue
		}
		var t trajectory.Trajectory
		if json.Unmarshal(b, &t) == nil {
			joined = trajectory.Append(joined, &t)
		}
	}
	if joined == nil || trajectory.WriteFile(keep, joined) != nil {
		return ""
	}
	return keep
}
