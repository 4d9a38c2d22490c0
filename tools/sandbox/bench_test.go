//go:build linux

package sandbox_test

import (
	"flag"

	"os/exec"
	"testing"

	"lathe/tools/sandbox"
)

// helperFlag runs the benchmarks with another binary as the helper (one
// that dispatches sandbox.HelperArg, such as lathe itself), to count its
// start-up too; by default the test binary is the helper.
var helperFlag = flag.String("sandbox.helper", "", "binary to run as the sandbox helper in benchmarks")

func helperExe(b *testing.B) string {
	if *helperFlag != "" {
		return *helperFlag
	}
	return exe(b)
}

// bench runs command b.N times: directly with bash, and through the
// helper in each mode.
func bench(b *testing.B, e *env, command string) {
	b.Run("bash", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("bash", "-c", command)
			cmd.Dir, cmd.Env = e.ws, e.environ()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v\n%s", err, out)
			}
		}
	})
	for _, mode := range []sandbox.Mode{sandbox.Off, sandbox.WorkspaceWrite} {
		b.Run(string(mode), func(b *testing.B) {
			if mode != sandbox.Off {
				requireSandbox(b)
			}
			p := e.policy
			p.Mode = mode
			mkdir(b, p.TempDir) // lathe makes it once for the session
			exe := helperExe(b)
			for b.Loop() {
				cmd, err := sandbox.Command(b.Context(), exe, p, command)
				if err != nil {
					b.Fatal(err)
				}
				cmd.Env = e.environ()
				r, err := cmd.Run()
				if err != nil || r.ExitCode != 0 || len(r.Blocked) > 0 {
					b.Fatalf("%v: %+v", err, r)
				}
			}
		})
	}
}

// BenchmarkTrue is the overhead the sandbox adds to one command.
func BenchmarkTrue(b *testing.B) {
	bench(b, newEnv(b), "true")
}

// BenchmarkGoTest is "go test" of a small package, with a warm build
// cache (GOCACHE is the user's, inside the writable directories).
func BenchmarkGoTest(b *testing.B) {
	e := newEnv(b)
	writeFile(b, e.ws+"/go.mod", "module small\n\ngo 1.22\n")
	writeFile(b, e.ws+"/small.go", "package small\n\nfunc Add(a, b int) int { return a + b }\n")
	writeFile(b, e.ws+"/small_test.go", "package small\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n")
	bench(b, e, "go test -count=1 .")
}
