package runfiles

import (
	"encoding/json"
	"strings"

	"lathe/config/safefile"
)

// maxPackageJSON bounds what is read of a package.json.
const maxPackageJSON = 1 << 20

type packageJSON struct {
	Main    string            `json:"main"`
	Scripts map[string]string `json:"scripts"`
}

func readPackageJSON(path string) packageJSON {
	var p packageJSON
	if b, err := safefile.ReadPath(path, maxPackageJSON); err == nil {
		_ = json.Unmarshal(b, &p)
	}
	return p
}

// packageJSONMain is the main file a package.json names, "" when none.
func packageJSONMain(path string) string {
	return readPackageJSON(path).Main
}

// packageJSONScript is the command line of script name in a
// package.json; "npm start" without one runs "node server.js".
func packageJSONScript(path, name string) string {
	p := readPackageJSON(path)
	if line, ok := p.Scripts[name]; ok {
		return line
	}
	if name == "start" {
		return "node server.js"
	}
	return ""
}

// commandLines splits a script's line into the command lines it chains
// (with &&, ||, ; or |), each as words, leaving out those that are more
// than plain words (substitutions, redirections, subshells).
func commandLines(line string) [][]string {
	var out [][]string
	for _, part := range strings.FieldsFunc(line, func(r rune) bool { return r == ';' || r == '&' || r == '|' }) {
		if strings.ContainsAny(part, "$`<>()\\\n") {
			continue
		}
		var words []string
		for _, w := range strings.Fields(part) {
			words = append(words, strings.Trim(w, `'"`))
		}
		if len(words) > 0 {
			out = append(out, words)
		}
	}
	return out
}
