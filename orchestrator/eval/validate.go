package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Validation is what lathe eval validate found of a task: its check run on
// its reference solution and on its untouched starting files. A task
// whose check tells them apart separates them.
type Validation struct {
	Task   string `json:"task"`
	Format string `json:"format"`
	// Skipped says why the task was not run; "" when it was.
	Skipped   string   `json:"skipped,omitempty"`
	Reference *Outcome `json:"reference,omitempty"`
	Untouched *Outcome `json:"untouched,omitempty"`
	Separates bool     `json:"separates"`
}

// Outcome is what the check said of one set of files.
type Outcome struct {
	Met    bool     `json:"goal_met"`
	Reward *float64 `json:"reward,omitempty"`
	Exit   int      `json:"exit"`
	Output string   `json:"output"`
}

// Verdict says in words what v found.
func (v Validation) Verdict() string {
	switch {
	case v.Skipped != "":
		return "skipped: " + v.Skipped
	case v.Separates:
		return "ok: the reference solution meets the goal, the starting files do not"
	case !v.Reference.Met && v.Untouched.Met:
		return "FAIL: the check fails the reference solution and passes the starting files"
	case !v.Reference.Met:
		return "FAIL: the check fails the reference solution" + v.Reference.why()
	}
	return "FAIL: the starting files already meet the goal"
}

func (o *Outcome) why() string {
	switch {
	case o.Reward != nil:
		return " (reward " + strconv.FormatFloat(*o.Reward, 'f', -1, 64) + ")"
	case o.Exit >= 0:
		return fmt.Sprintf(" (exit %d)", o.Exit)
	}
	return ""
}

// Validate runs the check of each task of suite on the task's reference
// solution (Harbor's solve.sh, Terminal-Bench's solution.sh, Polyglot's
// example files) and on its untouched starting files. A task without a
// reference solution, one whose toolchain is missing and one that needs
// a container are skipped, with why.
func (r *Runner) Validate(ctx context.Context, suite *Suite) []Validation {
	env := &toolchains{probed: map[string]bool{}, found: map[string]string{}}
	var out []Validation
	for _, t := range suite.Tasks {
		v := Validation{Task: t.Name, Format: t.Format}
		if v.Format == "" {
			v.Format = "lathe"
		}
		switch {
		case t.Kit == nil:
			v.Skipped = "no reference solution (a task.toml names none)"
		case t.Container != nil:
			v.Skipped = fmt.Sprintf("needs a container (%s): lathe eval validate runs tasks on this machine only; "+
				"Harbor's oracle agent runs its solution in the container", t.Container.what())
		case t.Kit.Solve == "" && len(t.Kit.Examples) == 0:
			v.Skipped = "no reference solution in the task"
		default:
			v.Skipped = env.missing(ctx, t)
		}
		if v.Skipped == "" {
			v.Reference = r.tryFiles(ctx, t, true)
			if ctx.Err() != nil {
				return out
			}
			v.Untouched = r.tryFiles(ctx, t, false)
			v.Separates = v.Reference.Met && !v.Untouched.Met
		}
		out = append(out, v)
	}
	for _, b := range suite.Bad {
		out = append(out, Validation{Task: b.Task, Skipped: b.Error()})
	}
	return out
}

// tryFiles runs t's check on a fresh copy of its starting files, with the
// reference solution applied first when reference is set.
func (r *Runner) tryFiles(ctx context.Context, t Task, reference bool) *Outcome {
	d, err := prepareAttempt(r.TempDir, t)
	if err != nil {
		return &Outcome{Exit: -1, Output: err.Error()}
	}
	defer os.RemoveAll(d.root)
	if reference {
		if o := r.applyReference(ctx, t, d); o != nil {
			return o
		}
	}
	c := r.verify(ctx, t, d)
	return &Outcome{Met: c.Met, Reward: c.Reward, Exit: c.Exit, Output: c.Output}
}

// applyReference puts t's reference solution into attempt d: the example
// files copied over the solution files, or the solution's script run in
// the work, confined as a check is. It returns the outcome when that
// failed, nil when it went well.
func (r *Runner) applyReference(ctx context.Context, t Task, d attemptDirs) *Outcome {
	k, m := t.Kit, t.mapping(d)
	for example, solution := range k.Examples {
		err := copyFile(filepath.Join(t.Dir, filepath.FromSlash(example)), filepath.Join(d.work, filepath.FromSlash(solution)), nil)
		if err != nil {
			return &Outcome{Exit: -1, Output: "copy the example: " + err.Error()}
		}
	}
	if k.Solve == "" {
		return nil
	}
	var err error
	switch {
	case k.SolveDir != "":
		err = copyTree(filepath.Join(t.Dir, filepath.FromSlash(k.SolveDir)), filepath.Join(d.root, "solution"), nil, m)
	case k.SolveFrom != "":
		err = copyFile(filepath.Join(t.Dir, filepath.FromSlash(k.SolveFrom)), mapPaths(k.Solve, m), m)
	}
	if err != nil {
		return &Outcome{Exit: -1, Output: "copy the solution: " + err.Error()}
	}
	cmd := "cd " + shellQuote(d.work) + " && bash " + shellQuote(mapPaths(k.Solve, m))
	c := r.checker()(ctx, d.root, cmd, checkEnv(r.Lathe.Env, t.Dir), t.Timeout)
	if c.Exit != 0 {
		return &Outcome{Exit: c.Exit, Output: "the solution's script failed: " + c.Output}
	}
	return nil
}
