package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"lathe/prompts"
)

// An Aider Polyglot exercise is {lang}/exercises/practice/{slug}/ with
// .docs/instructions.md (and optionally introduction.md and
// instructions.append.md), .meta/config.json naming its solution, test
// and example files, and the starting and test files themselves. The
// model gets the instructions and the exercise's files but .docs and
// .meta; the tests are restored before each check; a failed check gives
// it a second and last try, told the tests' output (aider's benchmark).
const polyglotConfig = ".meta/config.json"

// polyglotTries is the benchmark's number of tries.
const polyglotTries = 2

// polyglotCheckTimeout bounds a language's tests, a first build included
// (cargo, cmake).
const polyglotCheckTimeout = 3 * time.Minute

// polyglotLanguage is how an exercise of a language is tested.
type polyglotLanguage struct {
	requires  []string
	check     string
	probe     []string // must succeed, else the exercise is skipped
	probeWhat string
}

// polyglotLanguages are the benchmark's six languages and their test
// commands, as aider's benchmark runs them.
var polyglotLanguages = map[string]polyglotLanguage{
	"go":     {requires: []string{"go"}, check: "go test ./..."},
	"python": {requires: []string{"python3"}, check: "python3 -m pytest -q", probe: []string{"python3", "-m", "pytest", "--version"}, probeWhat: "pytest (python3 -m pytest)"},
	"rust":   {requires: []string{"cargo"}, check: "cargo test -- --include-ignored"},
	"javascript": {requires: []string{"npm"}, check: "npm test", probe: []string{"test", "-d", "node_modules"},
		probeWhat: "the exercise's node_modules (npm install, done beforehand)"},
	"cpp":  {requires: []string{"cmake", "make"}, check: "cmake -DEXERCISM_RUN_ALL_TESTS=1 -S . -B build && cmake --build build"},
	"java": {requires: []string{"java"}, check: "./gradlew test --offline"},
}

// exerciseConfig is .meta/config.json's list of files.
type exerciseConfig struct {
	Files struct {
		Solution []string `json:"solution"`
		Test     []string `json:"test"`
		Example  []string `json:"example"`
	} `json:"files"`
}

// isExercise reports whether dir is a Polyglot exercise.
func isExercise(dir string) bool {
	return isFile(filepath.Join(dir, filepath.FromSlash(polyglotConfig))) &&
		isFile(filepath.Join(dir, ".docs", "instructions.md"))
}

// polyglotExercises are the exercise directories under dir, when dir is a
// Polyglot set's root ({lang}/exercises/practice/...), one language's
// directory (exercises/practice/...) or one exercise; with the language of
// each. ok is false when dir is none of those.
func polyglotExercises(dir string) (found []exerciseDir, ok bool) {
	if isExercise(dir) {
		practice := filepath.Dir(dir)
		lang := filepath.Base(filepath.Dir(filepath.Dir(practice)))
		return []exerciseDir{{dir: dir, lang: lang}}, true
	}
	if ex := languageExercises(dir, filepath.Base(dir)); ex != nil {
		return ex, true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			found = append(found, languageExercises(filepath.Join(dir, e.Name()), e.Name())...)
			ok = ok || isDir(filepath.Join(dir, e.Name(), "exercises", "practice"))
		}
	}
	return found, ok
}

type exerciseDir struct{ dir, lang string }

// languageExercises are the exercises of the language directory dir; nil
// when it is not one.
func languageExercises(dir, lang string) []exerciseDir {
	practice := filepath.Join(dir, "exercises", "practice")
	entries, err := os.ReadDir(practice)
	if err != nil {
		return nil
	}
	var out []exerciseDir
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, exerciseDir{dir: filepath.Join(practice, e.Name()), lang: lang})
		}
	}
	return out
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

// loadExercise reads the Polyglot exercise in ex, named {lang}/{slug}.
func loadExercise(ex exerciseDir) (Task, error) {
	name := ex.lang + "/" + filepath.Base(ex.dir)
	file := filepath.Join(ex.dir, filepath.FromSlash(polyglotConfig))
	fail := func(format string, args ...any) (Task, error) {
		return Task{}, &TaskError{Task: name, File: file, Msg: fmt.Sprintf(format, args...)}
	}
	lang, known := polyglotLanguages[ex.lang]
	if !known {
		return fail("unknown language %q (the languages are cpp, go, java, javascript, python, rust)", ex.lang)
	}
	data, err := readLimited(file)
	if err != nil {
		return fail("%v", err)
	}
	var c exerciseConfig
	if err := json.Unmarshal(data, &c); err != nil {
		return fail("not JSON: %v", err)
	}
	files := c.Files
	if len(files.Solution) == 0 || len(files.Test) == 0 {
		return fail("files: names no solution or test file")
	}
	for _, f := range slices.Concat(files.Solution, files.Test, files.Example) {
		if !filepath.IsLocal(filepath.FromSlash(f)) {
			return fail("files: %q is not a path inside the exercise", f)
		}
	}
	examples, err := pairExamples(files.Example, files.Solution)
	if err != nil {
		return fail("files: %v", err)
	}
	instructions, err := exerciseInstructions(ex.dir)
	if err != nil {
		return Task{}, &TaskError{Task: name, File: filepath.Join(ex.dir, ".docs", "instructions.md"), Msg: err.Error()}
	}
	t := Task{Name: name, Prompt: prompts.PolyglotTask(instructions, files.Solution), Format: FormatPolyglot,
		Timeout: DefaultTimeout, CheckTimeout: polyglotCheckTimeout, Tags: []string{ex.lang},
		Requires: lang.requires, Check: lang.check, Tries: polyglotTries, Probe: lang.probe, ProbeWhat: lang.probeWhat,
		Kit: &Kit{Start: ".", Skip: []string{".meta", ".docs", ".exercism"}, Restore: files.Test,
			Files: files.Solution, Examples: examples}}
	return withDigest(t, ex.dir)
}

// pairExamples pairs each example file with the solution file it
// replaces: by position when they are as many, else by base name.
func pairExamples(examples, solutions []string) (map[string]string, error) {
	if len(examples) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	if len(examples) == len(solutions) {
		for i, e := range examples {
			out[e] = solutions[i]
		}
		return out, nil
	}
	for _, e := range examples {
		i := slices.IndexFunc(solutions, func(s string) bool { return filepath.Base(s) == filepath.Base(e) })
		if i < 0 {
			return nil, fmt.Errorf("example %s matches no solution file", e)
		}
		out[e] = solutions[i]
	}
	return out, nil
}

// exerciseInstructions are the exercise's introduction, instructions and
// their appendix, as the benchmark gives them.
func exerciseInstructions(dir string) (string, error) {
	var parts []string
	for _, name := range []string{"introduction.md", "instructions.md", "instructions.append.md"} {
		b, err := readLimited(filepath.Join(dir, ".docs", name))
		if err != nil {
			if name == "instructions.md" {
				return "", err
			}
			continue
		}
		parts = append(parts, strings.TrimSpace(string(b)))
	}
	return strings.Join(parts, "\n\n"), nil
}
