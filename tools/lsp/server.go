package lsp

import (
	"path/filepath"
	"slices"
	"strings"
)

// Server is a language server lathe may start: a program that speaks the
// protocol on its stdin and stdout.
type Server struct {
	// Name names it in config ([lsp.NAME]), logs and messages.
	Name    string
	Command string
	Args    []string
	// Extensions are the files it serves, by extension with its dot
	// (".go"); matched without regard to case.
	Extensions []string
	// Languages are the language ids sent for an extension, when the
	// built-in table does not know it (.lsp.json's extensionToLanguage).
	Languages map[string]string
	// RootMarkers are files that mark a project of its language (go.mod):
	// one at the top of the workspace says the workspace holds it.
	RootMarkers []string
	// Env is added to the environment it starts with.
	Env map[string]string
	// Trust is what trust in it is given to, when it needs trust (see
	// Options.Admit); "" when it needs none.
	Trust string
}

// Serves reports whether s serves the file at path.
func (s Server) Serves(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext != "" && slices.ContainsFunc(s.Extensions, func(e string) bool { return strings.ToLower(e) == ext })
}

// language is the language id of the file at path.
func (s Server) language(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	for e, id := range s.Languages {
		if strings.ToLower(e) == ext {
			return id
		}
	}
	if id, ok := languageIDs[ext]; ok {
		return id
	}
	return strings.TrimPrefix(ext, ".")
}

// languageIDs are the protocol's language ids of common extensions.
var languageIDs = map[string]string{
	".go": "go", ".py": "python", ".pyi": "python",
	".ts": "typescript", ".tsx": "typescriptreact", ".mts": "typescript", ".cts": "typescript",
	".js": "javascript", ".jsx": "javascriptreact", ".mjs": "javascript", ".cjs": "javascript",
	".rs": "rust", ".c": "c", ".h": "c",
	".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
}

// Builtins are the servers lathe knows without being told, named after
// their programs, in the order they are preferred: for a file two of them
// serve, the first found on PATH.
func Builtins() []Server {
	return []Server{
		{Name: "gopls", Command: "gopls", Extensions: []string{".go"}, RootMarkers: []string{"go.mod", "go.work"}},
		{Name: "pyright", Command: "pyright-langserver", Args: []string{"--stdio"}, Extensions: []string{".py", ".pyi"},
			RootMarkers: pythonMarkers},
		{Name: "basedpyright", Command: "basedpyright-langserver", Args: []string{"--stdio"}, Extensions: []string{".py", ".pyi"},
			RootMarkers: pythonMarkers},
		{Name: "typescript", Command: "typescript-language-server", Args: []string{"--stdio"},
			Extensions:  []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"},
			RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json"}},
		{Name: "rust-analyzer", Command: "rust-analyzer", Extensions: []string{".rs"}, RootMarkers: []string{"Cargo.toml"}},
		{Name: "clangd", Command: "clangd", Extensions: []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"},
			RootMarkers: []string{"compile_commands.json", "compile_flags.txt", ".clangd", "CMakeLists.txt"}},
	}
}

var pythonMarkers = []string{"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "pyrightconfig.json"}
