package eval

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"lathe/tools/sandbox"
)

// TestBuiltinChecks: each built-in task's check fails on the task's own
// files and passes once the hand-made solution in testdata/solutions is
// laid over them: a check that passed on the untouched files, or failed
// on a right answer, would measure nothing.
func TestBuiltinChecks(t *testing.T) {
	suite, err := Builtin(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(suite.Bad) > 0 {
		t.Fatalf("bad built-in tasks: %v", suite.Bad)
	}
	if n := len(suite.Tasks); n < 12 {
		t.Errorf("%d built-in tasks, want 12", n)
	}
	env := os.Environ()
	for _, task := range suite.Tasks {
		t.Run(task.Name, func(t *testing.T) {
			t.Parallel()
			for _, prog := range task.Requires {
				if _, err := exec.LookPath(prog); err != nil {
					t.Skipf("needs %s, which is not installed", prog)
				}
			}
			dir, err := prepare(t.TempDir(), task)
			if err != nil {
				t.Fatal(err)
			}
			cenv := checkEnv(env, task.Dir)
			if res := RunCheck(t.Context(), dir, task.Check, cenv, task.CheckTimeout); res.Met {
				t.Errorf("the check passes on the task's own files:\n%s", res.Output)
			}
			sol, err := txtar.ParseFile(filepath.Join("testdata", "solutions", task.Name+".txtar"))
			if err != nil {
				t.Fatalf("no solution: %v", err)
			}
			if err := writeArchive(dir, sol); err != nil {
				t.Fatal(err)
			}
			if res := RunCheck(t.Context(), dir, task.Check, cenv, task.CheckTimeout); !res.Met {
				t.Errorf("the check fails on the solution (exit %d):\n%s", res.Exit, res.Output)
			}
			// And in the sandbox, as lathe eval runs it.
			exe, _ := os.Executable()
			p := sandbox.DefaultPolicy(dir, os.Getenv("HOME"), os.Getenv)
			if _, _, err := sandbox.Probe(sandbox.ProbeOptions{}).Resolve(p, sandbox.Refuse); err != nil {
				return
			}
			confined := ConfinedCheck(exe, func(string) (sandbox.Policy, bool) { return p, true })
			if res := confined(t.Context(), dir, task.Check, cenv, task.CheckTimeout); !res.Met {
				t.Errorf("in the sandbox, the check fails on the solution (exit %d):\n%s", res.Exit, res.Output)
			}
		})
	}
}

// TestBuiltinSolutionsNamed: every solution is of a built-in task.
func TestBuiltinSolutionsNamed(t *testing.T) {
	suite, err := Builtin(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sols, _ := filepath.Glob(filepath.Join("testdata", "solutions", "*.txtar"))
	for _, s := range sols {
		if _, ok := suite.Task(strings.TrimSuffix(filepath.Base(s), ".txtar")); !ok {
			t.Errorf("%s solves no built-in task", s)
		}
	}
}

// TestConfinedCheck: a check run through the sandbox writes in its
// working directory but nowhere else, and its exit code and output come
// back; without a policy it runs as RunCheck.
func TestConfinedCheck(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, outside := t.TempDir(), t.TempDir()
	p := sandbox.DefaultPolicy(dir, "", func(string) string { return "" })
	p.Writable = nil // not even /tmp: outside is under it
	if _, _, err := sandbox.Probe(sandbox.ProbeOptions{}).Resolve(p, sandbox.Refuse); err != nil {
		t.Skip("no sandbox here:", err)
	}
	check := ConfinedCheck(exe, func(string) (sandbox.Policy, bool) { return p, true })
	env := append(os.Environ(), "OUTSIDE="+outside)
	if res := check(t.Context(), dir, "echo in > inside.txt && echo fine", env, time.Minute); !res.Met || res.Output != "fine" {
		t.Errorf("inside: %+v", res)
	}
	res := check(t.Context(), dir, `echo out > "$OUTSIDE/x"`, env, time.Minute)
	if _, err := os.Stat(filepath.Join(outside, "x")); res.Met || err == nil {
		t.Errorf("a check wrote outside its directory: %+v", res)
	}
	if res := check(t.Context(), dir, "exit 3", env, time.Minute); res.Met || res.Exit != 3 {
		t.Errorf("exit 3: %+v", res)
	}
	unconfined := ConfinedCheck(exe, func(string) (sandbox.Policy, bool) { return sandbox.Policy{}, false })
	if res := unconfined(t.Context(), dir, `echo out > "$OUTSIDE/y"`, env, time.Minute); !res.Met {
		t.Errorf("without a policy: %+v", res)
	}
}
