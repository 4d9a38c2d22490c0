package eval

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"lathe/orchestrator/session"
)

// forAttempt is l with the variables that tell its run which attempt of
// which experiment it is (LATHE_EVAL_*): its telemetry carries them, so
// that an evaluation farm's runs line up by experiment and task.
func (l Lathe) forAttempt(e session.Experiment, a session.Attempt) Lathe {
	vars := []string{
		"LATHE_EVAL_EXPERIMENT=" + strconv.FormatInt(e.ID, 10),
		"LATHE_EVAL_SUITE=" + filepath.Base(e.Suite),
		"LATHE_EVAL_TASK=" + a.Task,
		"LATHE_EVAL_ATTEMPT=" + strconv.FormatInt(a.ID, 10),
		"LATHE_EVAL_REP=" + strconv.Itoa(a.Rep),
		"LATHE_EVAL_TRY=" + strconv.Itoa(a.Try),
	}
	set := func(kv string) bool {
		return slices.ContainsFunc(vars, func(v string) bool {
			name, _, _ := strings.Cut(v, "=")
			return strings.HasPrefix(kv, name+"=")
		})
	}
	l.Env = append(slices.DeleteFunc(slices.Clone(l.Env), set), vars...)
	return l
}
