package eval

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
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
