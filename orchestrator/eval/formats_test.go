package eval

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator/session"
)

// formats is the directory of the hand-made tasks in each format.
func formats(t *testing.T, sub string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "formats", sub))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func hasPytest() bool { return exec.Command("python3", "-m", "pytest", "--version").Run() == nil }

func TestLoadHarbor(t *testing.T) {
	s, err := LoadSuite(formats(t, "harbor"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Bad) > 0 || len(s.Tasks) != 3 {
		t.Fatalf("tasks %v, bad %v", s.Tasks, s.Bad)
	}
	hello, _ := s.Task("hello")
	if hello.Format != FormatHarbor || hello.Prompt != "Write the word in /app/word.txt, reversed, into /app/hello.txt." ||
		hello.Timeout != time.Minute || hello.CheckTimeout != 30*time.Second || hello.Check != "bash /tests/test.sh" ||
		!slices.Equal(hello.Tags, []string{"files"}) || hello.Container != nil {
		t.Errorf("hello: %+v", hello)
	}
	if k := hello.Kit; k.Start != "environment" || k.Tests != "tests" || !k.Reward || k.Solve != "/solution/solve.sh" ||
		k.SolveDir != "solution" || k.Workdir != "/app" {
		t.Errorf("hello's kit: %+v", k)
	}
	boxed, _ := s.Task("boxed")
	want := Container{Dockerfile: "environment/Dockerfile", Context: "environment", CPUs: 2, MemoryMB: 4096, Internet: true}
	if boxed.Container == nil || *boxed.Container != want {
		t.Errorf("boxed's container: %+v", boxed.Container)
	}
	partial, _ := s.Task("partial")
	if partial.Timeout != time.Minute || partial.CheckTimeout != harborTimeout {
		t.Errorf("partial: timeouts %s %s", partial.Timeout, partial.CheckTimeout)
	}
	// One task given alone is a suite of it.
	one, err := LoadSuite(filepath.Join(formats(t, "harbor"), "hello"))
	if err != nil || len(one.Tasks) != 1 || one.Tasks[0].Digest != hello.Digest {
		t.Errorf("one task: %+v, %v", one, err)
	}
}

func TestLoadTerminalBench(t *testing.T) {
	s, err := LoadSuite(formats(t, "tb"))
	if err != nil || len(s.Tasks) != 1 {
		t.Fatalf("%+v, %v", s, err)
	}
	g := s.Tasks[0]
	if g.Format != FormatTerminalBench || g.Prompt != `Write "hi" into /app/greeting.txt.` || g.Timeout != 2*time.Minute ||
		g.CheckTimeout != 30*time.Second || g.Check != "bash /run-tests.sh" || g.Kit.Env["TEST_DIR"] != "/tests" ||
		g.Kit.Copy["/run-tests.sh"] != "run-tests.sh" || g.Kit.Solve != "/solution/solution.sh" {
		t.Errorf("greet: %+v, kit %+v", g, g.Kit)
	}
}

func TestLoadPolyglot(t *testing.T) {
	root := formats(t, "polyglot")
	for _, dir := range []string{root, filepath.Join(root, "go"), filepath.Join(root, "go", "exercises", "practice", "two-fer")} {
		s, err := LoadSuite(dir)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		names := []string{}
		for _, task := range s.Tasks {
			names = append(names, task.Name)
		}
		want := []string{"go/two-fer"}
		if dir == root {
			want = []string{"go/two-fer", "python/two-fer"}
		}
		if !slices.Equal(names, want) || len(s.Bad) > 0 {
			t.Errorf("%s: tasks %v, bad %v", dir, names, s.Bad)
		}
	}
	s, _ := LoadSuite(root)
	g, _ := s.Task("go/two-fer")
	if !strings.HasPrefix(g.Prompt, "# Two Fer\n\nGiven a name") || !strings.Contains(g.Prompt, "these files: two_fer.go.") ||
		g.Check != "go test ./..." || g.Tries != 2 || !slices.Equal(g.Requires, []string{"go"}) ||
		!slices.Equal(g.Kit.Restore, []string{"two_fer_test.go"}) || g.Kit.Examples[".meta/example.go"] != "two_fer.go" {
		t.Errorf("go/two-fer: %+v, kit %+v", g, g.Kit)
	}
	p, _ := s.Task("python/two-fer")
	if p.Check != "python3 -m pytest -q" || !slices.Equal(p.Probe, []string{"python3", "-m", "pytest", "--version"}) {
		t.Errorf("python/two-fer: %+v", p)
	}
}

func TestMapPaths(t *testing.T) {
	m := Task{Kit: &Kit{Workdir: "/app", Copy: map[string]string{"/run-tests.sh": "run-tests.sh"}}}.
		mapping(attemptDirs{root: "/tmp/r", work: "/tmp/r/app"})
	for in, want := range map[string]string{
		"cat /app/hello.txt > /logs/verifier/reward.txt": "cat /tmp/r/app/hello.txt > /tmp/r/logs/verifier/reward.txt",
		`TEST_DIR=/tests; bash "$TEST_DIR/x" /tests`:     `TEST_DIR=/tmp/r/tests; bash "$TEST_DIR/x" /tmp/r/tests`,
		"bash /run-tests.sh":                             "bash /tmp/r/run-tests.sh",
		"ls /testsuite /x/tests /apps ~/app $HOME/tests": "ls /testsuite /x/tests /apps ~/app $HOME/tests",
		"cd /app && ls /solution/":                       "cd /tmp/r/app && ls /tmp/r/solution/",
		"open('/app')":                                   "open('/tmp/r/app')",
	} {
		if got := mapPaths(in, m); got != want {
			t.Errorf("mapPaths(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestValidate: on the host, each task's check separates its reference
// solution from its starting files; the task with a container is skipped
// with why, as is Python's exercise where pytest is missing.
func TestValidate(t *testing.T) {
	r, _ := testRunner(t, "refuse")
	var got []Validation
	for _, set := range []string{"harbor", "tb", "polyglot"} {
		s, err := LoadSuite(formats(t, set))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r.Validate(t.Context(), s)...)
	}
	verdicts := map[string]string{}
	for _, v := range got {
		verdicts[v.Task] = v.Verdict()
	}
	ok := "ok: the reference solution meets the goal, the starting files do not"
	want := map[string]string{"hello": ok, "greet": ok, "go/two-fer": ok,
		"boxed":   "skipped: needs a container (environment/Dockerfile)",
		"partial": "skipped: no reference solution in the task"}
	if hasPytest() {
		want["python/two-fer"] = ok
	} else {
		want["python/two-fer"] = "skipped: needs pytest (python3 -m pytest), which is not installed"
	}
	for task, w := range want {
		if !strings.HasPrefix(verdicts[task], w) {
			t.Errorf("%s: %q, want %q", task, verdicts[task], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d validations, want %d: %v", len(got), len(want), verdicts)
	}
	for _, v := range got {
		if v.Task == "hello" && (v.Reference.Reward == nil || *v.Reference.Reward != 1 || *v.Untouched.Reward != 0) {
			t.Errorf("hello's rewards: %+v %+v", v.Reference, v.Untouched)
		}
	}
}

// TestValidateCatchesABadCheck: a check that passes the untouched files,
// or fails the reference solution, does not separate them.
func TestValidateCatchesABadCheck(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(formats(t, "harbor"))); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, "boxed"))
	os.RemoveAll(filepath.Join(dir, "partial"))
	test := filepath.Join(dir, "hello", "tests", "test.sh")
	os.WriteFile(test, []byte("echo 1 > /logs/verifier/reward.txt\n"), 0o755)
	r, _ := testRunner(t, "refuse")
	s, _ := LoadSuite(dir)
	v := r.Validate(t.Context(), s)
	if len(v) != 1 || v[0].Separates || v[0].Verdict() != "FAIL: the starting files already meet the goal" {
		t.Errorf("%+v: %s", v, v[0].Verdict())
	}
	os.WriteFile(test, []byte("echo 0.5 > /logs/verifier/reward.txt\n"), 0o755)
	s, _ = LoadSuite(dir)
	v = r.Validate(t.Context(), s)
	if len(v) != 1 || v[0].Verdict() != "FAIL: the check fails the reference solution (reward 0.5)" {
		t.Errorf("%s", v[0].Verdict())
	}
}

// runFormat runs one experiment of the tasks in dir with the fake lathe in
// mode, keeping trajectories, and returns it.
func runFormat(t *testing.T, dir, mode string) session.Experiment {
	t.Helper()
	r, db := testRunner(t, mode)
	r.Trajectories = t.TempDir()
	r.Runtime = func(context.Context) (Runtime, error) { return Runtime{}, ErrNoRuntime }
	s, err := LoadSuite(dir)
	if err != nil {
		t.Fatal(err)
	}
	id, err := r.Start(t.Context(), Plan{Suite: s, Models: []string{"m"}, Repeat: 1, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	e, err := db.Experiment(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func attemptOf(t *testing.T, e session.Experiment, task string) session.Attempt {
	t.Helper()
	for _, a := range e.Attempts {
		if a.Task == task {
			return a
		}
	}
	t.Fatalf("no attempt of %s among %+v", task, e.Attempts)
	return session.Attempt{}
}

// TestHarborAttempt: a model that writes the reference solution meets the
// goal, with the reward recorded and the trajectory kept; one that writes
// nothing does not; the task with a container is skipped, not failed.
func TestHarborAttempt(t *testing.T) {
	dir := t.TempDir()
	os.CopyFS(dir, os.DirFS(formats(t, "harbor")))
	answer := filepath.Join(t.TempDir(), "hello.txt")
	os.WriteFile(answer, []byte("hello\n"), 0o644)
	e := runFormat(t, dir, "copy:"+answer+":hello.txt")
	a := attemptOf(t, e, "hello")
	if a.GoalMet == nil || !*a.GoalMet || a.Reward == nil || *a.Reward != 1 || a.State != session.AttemptFinished {
		t.Errorf("hello, solved: %+v", a)
	}
	if b, err := os.ReadFile(a.Trajectory); err != nil || !strings.Contains(string(b), `"ATIF-v1.6"`) {
		t.Errorf("trajectory %q: %v", a.Trajectory, err)
	}
	p := attemptOf(t, e, "partial")
	if p.GoalMet == nil || *p.GoalMet || p.Reward == nil || *p.Reward != 0 {
		t.Errorf("partial, nothing written: %+v", p)
	}
	skipped := ""
	for _, et := range e.Tasks {
		if et.Name == "boxed" {
			skipped = et.Skipped
		}
	}
	if want := "needs a container (environment/Dockerfile) and no container runtime answers"; !strings.HasPrefix(skipped, want) {
		t.Errorf("boxed skipped %q, want %q", skipped, want)
	}
	if slices.ContainsFunc(e.Attempts, func(a session.Attempt) bool { return a.Task == "boxed" }) {
		t.Error("the task needing a container was attempted")
	}
	// A partial reward is recorded as it is.
	half := filepath.Join(t.TempDir(), "a.txt")
	os.WriteFile(half, []byte("a"), 0o644)
	e = runFormat(t, dir, "copy:"+half+":a.txt")
	if p := attemptOf(t, e, "partial"); p.Reward == nil || *p.Reward != 0.5 || *p.GoalMet {
		t.Errorf("partial, one file: %+v", p)
	}
	if a := attemptOf(t, e, "hello"); *a.GoalMet || *a.Reward != 0 {
		t.Errorf("hello, not solved: %+v", a)
	}
	// The host's own /logs was never written to.
	if _, err := os.Stat("/logs/verifier/reward.txt"); err == nil {
		t.Error("/logs/verifier/reward.txt exists")
	}
}

func TestTerminalBenchAttempt(t *testing.T) {
	answer := filepath.Join(t.TempDir(), "g")
	os.WriteFile(answer, []byte("hi\n"), 0o644)
	for mode, met := range map[string]bool{"copy:" + answer + ":greeting.txt": true, "refuse": false} {
		e := runFormat(t, formats(t, "tb"), mode)
		if a := attemptOf(t, e, "greet"); a.GoalMet == nil || *a.GoalMet != met || a.Reward != nil {
			t.Errorf("%s: %+v", mode, a)
		}
	}
}

// TestPolyglotTwoTries: the second try, told the failing tests, continues
// the session; a model that fixes the code then meets the goal, its two
// runs counted together; one that never does fails both tries.
func TestPolyglotTwoTries(t *testing.T) {
	dir := filepath.Join(formats(t, "polyglot"), "go")
	example := filepath.Join(dir, "exercises", "practice", "two-fer", ".meta", "example.go")
	for _, tc := range []struct {
		mode string
		met  bool
	}{{"copy:" + example + ":two_fer.go", true}, {"retry:" + example + ":two_fer.go", true}, {"refuse", false}} {
		e := runFormat(t, dir, tc.mode)
		a := attemptOf(t, e, "go/two-fer")
		if a.GoalMet == nil || *a.GoalMet != tc.met {
			t.Errorf("%s: goal met %v, want %v: %s", tc.mode, a.GoalMet, tc.met, a.CheckOutput)
		}
		turns := 4 // two runs of two turns
		if strings.HasPrefix(tc.mode, "copy:") {
			turns = 2
		}
		if a.Result.Turns != turns {
			t.Errorf("%s: %d turns, want %d", tc.mode, a.Result.Turns, turns)
		}
		var traj struct{ Steps []json.RawMessage }
		b, _ := os.ReadFile(a.Trajectory)
		if json.Unmarshal(b, &traj); len(traj.Steps) != turns/2 {
			t.Errorf("%s: the trajectory has %d steps, want one per run", tc.mode, len(traj.Steps))
		}
		var spec Task
		json.Unmarshal([]byte(e.Tasks[0].Spec), &spec)
		if v := spec.Toolchain["go"]; !strings.HasPrefix(v, "go version go1.") {
			t.Errorf("go's version recorded as %q", v)
		}
	}
}

// TestPolyglotPython: without pytest the exercise is skipped, saying so;
// with it, a model that writes the example meets the goal.
func TestPolyglotPython(t *testing.T) {
	dir := filepath.Join(formats(t, "polyglot"), "python")
	example := filepath.Join(dir, "exercises", "practice", "two-fer", ".meta", "example.py")
	e := runFormat(t, dir, "copy:"+example+":two_fer.py")
	if !hasPytest() {
		if want := "needs pytest (python3 -m pytest), which is not installed"; !strings.HasPrefix(e.Tasks[0].Skipped, want) {
			t.Errorf("skipped %q, want %q", e.Tasks[0].Skipped, want)
		}
		t.Skip("pytest is not installed: python3 -m pytest --version fails")
	}
	if a := attemptOf(t, e, "python/two-fer"); a.GoalMet == nil || !*a.GoalMet {
		t.Errorf("%+v", a)
	}
}

// TestContainerPlan: a task with a container runs through the runtime's
// commands, here played by a stand-in: the image built, lathe copied in
// and run against the host's model server, the tests copied in, the
// reward copied out.
func TestContainerPlan(t *testing.T) {
	var ran [][]string
	standIn := func(_ context.Context, argv []string, _ time.Duration) (int, string, error) {
		ran = append(ran, argv)
		switch {
		case slices.Contains(argv, "/usr/local/bin/lathe"):
			return 0, `{"type":"result","stop_reason":"done","turns":3,"session_id":"c1"}`, nil
		case argv[1] == "cp" && strings.HasSuffix(argv[2], ":/logs/verifier"):
			os.MkdirAll(filepath.Join(argv[3], "verifier"), 0o755)
			os.WriteFile(filepath.Join(argv[3], "verifier", "reward.txt"), []byte("1\n"), 0o644)
		}
		return 0, "", nil
	}
	r, db := testRunner(t, "refuse")
	r.Runtime = func(context.Context) (Runtime, error) { return Runtime{Name: "docker", Exec: standIn}, nil }
	r.Lathe.Env = append(r.Lathe.Env, "OLLAMA_HOST=127.0.0.1:11434")
	s, _ := LoadSuite(filepath.Join(formats(t, "harbor"), "boxed"))
	id, err := r.Start(t.Context(), Plan{Suite: s, Models: []string{"qwen3:8b"}, Repeat: 1, Jobs: 1, Sandbox: "off"})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := db.Experiment(t.Context(), id)
	a := attemptOf(t, e, "boxed")
	if a.GoalMet == nil || !*a.GoalMet || *a.Reward != 1 || a.Result.Turns != 3 {
		t.Errorf("%+v", a)
	}
	task := s.Tasks[0]
	name := "lathe-eval-" + itoa(a.ID)
	image := "lathe-eval-" + task.Digest[:12]
	want := [][]string{
		{"docker", "build", "-t", image, "-f", filepath.Join(task.Dir, "environment", "Dockerfile"), filepath.Join(task.Dir, "environment")},
		{"docker", "run", "-d", "--name", name, "--add-host", "host.docker.internal:host-gateway", "--cpus", "2", "--memory", "4096m", image, "sleep", "infinity"},
		{"docker", "exec", name, "mkdir", "-p", "/logs/agent", "/logs/verifier", "/app"},
		{"docker", "cp", r.Lathe.Exe, name + ":/usr/local/bin/lathe"},
		{"docker", "exec", "-w", "/app", "-e", "OLLAMA_HOST=http://host.docker.internal:11434", name, "/usr/local/bin/lathe",
			"--prompt=Fix the service in /app.", "--yes", "--output-format", "json", "-m", "qwen3:8b", "--trajectory",
			"/logs/agent/trajectory.json", "--sandbox", "off"},
		{"docker", "cp", filepath.Join(task.Dir, "tests"), name + ":/tests"},
		{"docker", "exec", "-w", "/app", name, "bash", "-c", "bash /tests/test.sh"},
	}
	if len(ran) < len(want)+3 {
		t.Fatalf("ran %q", ran)
	}
	for i, w := range want {
		if !slices.Equal(ran[i], w) {
			t.Errorf("command %d: %q, want %q", i, ran[i], w)
		}
	}
	if last := ran[len(ran)-1]; !slices.Equal(last, []string{"docker", "rm", "-f", name}) {
		t.Errorf("last command %q: the container is not removed", last)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestFindRuntime: a runtime's CLI without its daemon does not count.
func TestFindRuntime(t *testing.T) {
	bin := t.TempDir()
	for _, name := range []string{"docker", "podman"} {
		os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\necho 'Cannot connect to the Docker daemon' >&2\nexit 1\n"), 0o755)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if _, err := FindRuntime(t.Context()); !errors.Is(err, ErrNoRuntime) {
		t.Errorf("no daemon: %v", err)
	}
	os.WriteFile(filepath.Join(bin, "podman"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	if rt, err := FindRuntime(t.Context()); err != nil || rt.Name != "podman" {
		t.Errorf("podman answers: %+v, %v", rt, err)
	}
}

func TestContainerServer(t *testing.T) {
	for in, want := range map[string]string{
		"":                         "http://host.docker.internal:11434",
		"127.0.0.1:11434":          "http://host.docker.internal:11434",
		"http://localhost:8080/v1": "http://host.docker.internal:8080/v1",
		"http://0.0.0.0:11434":     "http://host.docker.internal:11434",
		"http://gpu-box.lan:11434": "http://gpu-box.lan:11434",
		"https://10.0.0.5:443":     "https://10.0.0.5:443",
	} {
		if got := containerServer(in, "docker"); got != want {
			t.Errorf("containerServer(%q) = %q, want %q", in, got, want)
		}
	}
}
