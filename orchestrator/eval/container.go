package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"lathe/orchestrator/session"
)

// Runtime is the container runtime a task with a container runs in:
// docker or podman, whichever answers first.
type Runtime struct {
	Name string // docker or podman
	// Exec runs a command of the runtime's CLI (nil: the real one); a
	// stand-in takes its place in tests.
	Exec Exec
	// Err is why no runtime answers.
	Err error
}

// Exec runs argv for timeout at most; it returns the exit code (-1 when
// it did not exit by itself) and the output's end, stdout and stderr
// together.
type Exec func(ctx context.Context, argv []string, timeout time.Duration) (exit int, output string, err error)

// ErrNoRuntime is FindRuntime's error where no runtime answers.
var ErrNoRuntime = errors.New("no container runtime answers (docker info and podman info failed)")

// FindRuntime is the first of docker and podman whose daemon answers
// (`info` succeeds): a CLI without its daemon does not count.
func FindRuntime(ctx context.Context) (Runtime, error) {
	for _, name := range []string{"docker", "podman"} {
		if _, err := exec.LookPath(name); err != nil {
			continue
		}
		if exit, _, _ := runCommand(ctx, []string{name, "info"}, 20*time.Second); exit == 0 {
			return Runtime{Name: name, Exec: runCommand}, nil
		}
	}
	return Runtime{}, ErrNoRuntime
}

// runCommand is the real Exec.
func runCommand(ctx context.Context, argv []string, timeout time.Duration) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := &tail{max: checkOutput}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), nil
	case errors.As(err, &exit) && exit.Exited():
		return exit.ExitCode(), out.String(), nil
	}
	return -1, out.String(), err
}

// what names the container a task needs, for people.
func (c *Container) what() string {
	if c.Dockerfile != "" {
		return c.Dockerfile
	}
	return "image " + c.Image
}

// containerHosts are the names a container reaches its host by.
var containerHosts = map[string]string{"docker": "host.docker.internal", "podman": "host.containers.internal"}

// containerPlan is how an attempt of a task with a container runs: the
// runtime's commands, in order.
type containerPlan struct {
	rt      string
	name    string // the container's
	image   string
	build   []string // nil when the image is pulled as it is named
	create  []string
	prepare [][]string
	lathe   []string
	tests   [][]string
	check   []string
	results [][]string // copy the verdict and the trajectory out
	remove  []string
}

// planContainer is the plan of attempt id of task t by model: the image
// built (or named), a container of it started with the task's limits and
// a name for the host, lathe's binary exe copied in, lathe run in /app
// against the model server (server, as this machine reaches it), the
// tests copied in and run, and the verifier's logs and the trajectory
// copied out into root.
func planContainer(rt string, t Task, id int64, model, exe, server, sandbox, root string, flags []string) containerPlan {
	c := t.Container
	p := containerPlan{rt: rt, name: fmt.Sprintf("lathe-eval-%d", id), image: c.Image}
	if c.Dockerfile != "" {
		p.image = "lathe-eval-" + t.Digest[:12]
		p.build = []string{rt, "build", "-t", p.image, "-f", filepath.Join(t.Dir, filepath.FromSlash(c.Dockerfile)),
			filepath.Join(t.Dir, filepath.FromSlash(c.Context))}
	}
	p.create = []string{rt, "run", "-d", "--name", p.name, "--add-host", containerHosts[rt] + ":host-gateway"}
	if c.CPUs > 0 {
		p.create = append(p.create, "--cpus", strconv.Itoa(c.CPUs))
	}
	if c.MemoryMB > 0 {
		p.create = append(p.create, "--memory", strconv.Itoa(c.MemoryMB)+"m")
	}
	p.create = append(p.create, p.image, "sleep", "infinity")
	p.prepare = [][]string{
		{rt, "exec", p.name, "mkdir", "-p", "/logs/agent", "/logs/verifier", "/app"},
		{rt, "cp", exe, p.name + ":/usr/local/bin/lathe"},
	}
	p.lathe = []string{rt, "exec", "-w", "/app", "-e", "OLLAMA_HOST=" + containerServer(server, rt), p.name,
		"/usr/local/bin/lathe", "--prompt=" + t.Prompt, "--yes", "--output-format", "json", "-m", model,
		"--trajectory", "/logs/agent/trajectory.json"}
	if sandbox != "" {
		p.lathe = append(p.lathe, "--sandbox", sandbox)
	}
	if t.MaxTurns > 0 {
		p.lathe = append(p.lathe, "--max-turns", strconv.Itoa(t.MaxTurns))
	}
	for i := 0; i < len(flags); i++ {
		f := flags[i]
		switch {
		case f == "--base-url" && i+1 < len(flags):
			p.lathe = append(p.lathe, f, containerServer(flags[i+1], rt))
			i++
		case strings.HasPrefix(f, "--base-url="):
			p.lathe = append(p.lathe, "--base-url="+containerServer(strings.TrimPrefix(f, "--base-url="), rt))
		default:
			p.lathe = append(p.lathe, f)
		}
	}
	if k := t.Kit; k != nil {
		if k.Tests != "" {
			p.tests = append(p.tests, []string{rt, "cp", filepath.Join(t.Dir, filepath.FromSlash(k.Tests)), p.name + ":/tests"})
		}
		for dest, src := range k.Copy {
			p.tests = append(p.tests, []string{rt, "cp", filepath.Join(t.Dir, filepath.FromSlash(src)), p.name + ":" + dest})
		}
	}
	p.check = []string{rt, "exec", "-w", "/app"}
	if t.Kit != nil {
		for k, v := range t.Kit.Env {
			p.check = append(p.check, "-e", k+"="+v)
		}
	}
	p.check = append(p.check, p.name, "bash", "-c", t.Check)
	p.results = [][]string{
		{rt, "cp", p.name + ":/logs/verifier", filepath.Join(root, "logs")},
		{rt, "cp", p.name + ":/logs/agent/trajectory.json", filepath.Join(root, "trajectory.json")},
	}
	p.remove = []string{rt, "rm", "-f", p.name}
	return p
}

// containerServer is the model server's address as a container reaches
// it: a server on this machine's loopback is the host's name there.
func containerServer(server, rt string) string {
	if server == "" {
		server = "127.0.0.1:11434"
	}
	u, err := url.Parse(server)
	if err != nil || u.Host == "" {
		u, err = url.Parse("http://" + server)
		if err != nil {
			return server
		}
	}
	host, port := u.Hostname(), u.Port()
	if ip := net.ParseIP(host); host == "localhost" || host == "" || ip != nil && (ip.IsLoopback() || ip.IsUnspecified()) {
		host = containerHosts[rt]
	}
	if port != "" {
		host = net.JoinHostPort(host, port)
	}
	u.Host = host
	return u.String()
}

// runContainer runs attempt a of task t in a container, and says how it
// ended.
func (r *Runner) runContainer(ctx context.Context, e session.Experiment, a session.Attempt, t Task) session.AttemptEnd {
	fail := func(msg string) session.AttemptEnd {
		return session.AttemptEnd{State: session.AttemptFailed, FailureReason: session.FailError, Failure: msg}
	}
	rt, err := r.findRuntime(ctx)
	if err != nil {
		return fail(err.Error())
	}
	x := rt.Exec
	if x == nil {
		x = runCommand
	}
	root, err := os.MkdirTemp(r.TempDir, "lathe-eval-container-")
	if err != nil {
		return fail(err.Error())
	}
	defer os.RemoveAll(root)
	if err := os.MkdirAll(filepath.Join(root, "logs"), 0o755); err != nil {
		return fail(err.Error())
	}
	p := planContainer(rt.Name, t, a.ID, a.Model, r.Lathe.Exe, envValue(r.Lathe.Env, "OLLAMA_HOST"), e.Sandbox, root,
		r.Lathe.Flags)
	defer x(context.WithoutCancel(ctx), p.remove, time.Minute)
	step := func(argv []string, timeout time.Duration) error {
		exit, out, err := x(ctx, argv, timeout)
		if err == nil && exit != 0 {
			err = fmt.Errorf("%s exited with %d: %s", strings.Join(argv[:2], " "), exit, lastText(out))
		}
		return err
	}
	steps := [][]string{p.create}
	if p.build != nil {
		steps = append([][]string{p.build}, steps...)
	}
	for _, s := range append(steps, p.prepare...) {
		if err := step(s, 30*time.Minute); err != nil {
			return fail("set up the container: " + err.Error())
		}
	}
	start := time.Now()
	exit, out, err := x(ctx, p.lathe, t.Timeout)
	l := launched{exit: exit, wall: time.Since(start), stderr: out, interrupted: ctx.Err() != nil, err: err}
	var res runResult
	if line := lastLine([]byte(out)); json.Unmarshal(line, &res) == nil && res.StopReason != "" {
		l.result = &res
	}
	var check *CheckResult
	if !l.interrupted && err == nil {
		for _, s := range p.tests {
			if err := step(s, time.Minute); err != nil {
				return fail("copy the tests in: " + err.Error())
			}
		}
		exit, out, _ := x(ctx, p.check, t.CheckTimeout)
		c := CheckResult{Exit: exit, Output: out, Met: exit == 0}
		for _, s := range p.results {
			_ = step(s, time.Minute) // what is missing shows below
		}
		if t.Kit != nil && t.Kit.Reward {
			reward, why := readReward(attemptDirs{root: root})
			c.Reward, c.Met = reward, reward != nil && *reward >= 1
			if why != "" {
				c.Output = strings.TrimSpace(c.Output + "\n(" + why + ")")
			}
		}
		check = &c
	}
	end := l.end(t, check)
	if check != nil {
		end.Reward = check.Reward
	}
	if keep := r.trajectoryPath(e.ID, a.ID); keep != "" {
		end.Trajectory = keepTrajectory(keep, []string{filepath.Join(root, "trajectory.json")})
	}
	return end
}

// envValue is the value of key in env; "" when unset.
func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}
