package cli

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// initBudget is the most a package's initialisation may allocate when
// lathe starts. chroma's lexers took 2.3 MB (8–9 ms) before their registry
// was built on first use, and go-runewidth v0.0.27 builds 2.2 MB of tables.
const initBudget = 512 << 10

// TestStartupInitialisesLittle: no package of lathe's build does much work
// before main, where it would be paid at every start, --version included.
// What a package's initialisation allocates is the measure: unlike its
// time, it does not vary with the machine's load.
func TestStartupInitialisesLittle(t *testing.T) {
	if testing.Short() {
		t.Skip("builds lathe")
	}
	bin := buildLathe(t)
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("lathe --version: %v\n%s", err, stderr.Bytes())
	}
	inits := 0
	sc := bufio.NewScanner(bytes.NewReader(stderr.Bytes()))
	for sc.Scan() {
		// init github.com/x/y @3.4 ms, 8.0 ms clock, 2289648 bytes, 25854 allocs
		f := strings.Fields(sc.Text())
		if len(f) < 9 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		inits++
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		if n >= initBudget {
			t.Errorf("%s allocates %d KiB at start-up (%s ms): more than %d KiB", f[1], n>>10, f[4], initBudget>>10)
		}
	}
	if inits == 0 {
		t.Fatalf("no initialisation traced:\n%s", stderr.Bytes())
	}
}
