package codeindex_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"lathe/tools/codeindex"
)

// labelled is a small project whose files each do one thing, with the
// queries that should find each first.
var labelled = map[string]string{
	"auth/password.go": `package auth

// HashPassword hashes a password with bcrypt for storing in the users table.
func HashPassword(password string) (string, error) { return "", nil }

// CheckPassword compares a password with its stored bcrypt hash.
func CheckPassword(hash, password string) bool { return false }
`,
	"auth/token.go": `package auth

// IssueToken signs a JWT access token for a user session, valid for an hour.
func IssueToken(userID string) (string, error) { return "", nil }
`,
	"http/router.go": `package http

// Route registers the handlers of the HTTP API: login, logout and the user endpoints.
func Route(mux *ServeMux) {}
`,
	"db/migrate.go": `package db

// Migrate applies the schema migrations to the SQLite database in order.
func Migrate(conn *Conn) error { return nil }
`,
	"cache/lru.go": `package cache

// LRU is a least recently used cache with a fixed capacity; Get moves an entry to the front.
type LRU struct{ capacity int }
`,
	"docs/deploy.md": "# Deploying\n\nBuild the container image with docker build and push it to the registry.\n",
}

func TestSearchRanking(t *testing.T) {
	p := newProject(t, labelled)
	p.update(t, p.options("embeddinggemma"))
	s := codeindex.NewSearcher(p.db, p.emb)
	for _, c := range []struct {
		query, want string
	}{
		{"how are passwords hashed", "auth/password.go"},
		{"sign a jwt token", "auth/token.go"},
		{"which handlers does the http api register", "http/router.go"},
		{"apply database schema migrations", "db/migrate.go"},
		{"least recently used cache capacity", "cache/lru.go"},
		{"build and push the docker image", "docs/deploy.md"},
		{"CheckPassword", "auth/password.go"},
	} {
		res, err := s.Search(t.Context(), codeindex.Query{Dir: p.dir, Root: p.ws.Root(), Text: c.query})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 || res[0].Path != c.want {
			var got []string
			for _, r := range res {
				got = append(got, r.Path)
			}
			t.Errorf("%q: found %q, want %s first", c.query, got, c.want)
		}
	}
}

// TestSearchResult: a result has its lines, symbol and text; the keyword
// half finds an exact identifier; a file changed since it was indexed is
// flagged; the vectors in memory follow the index.
func TestSearchResult(t *testing.T) {
	p := newProject(t, labelled)
	p.update(t, p.options("embeddinggemma"))
	s := codeindex.NewSearcher(p.db, p.emb)
	res, err := s.Search(t.Context(), codeindex.Query{Dir: p.dir, Root: p.ws.Root(), Text: "IssueToken", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 {
		t.Fatalf("%d results, want 2 (the limit)", len(res))
	}
	r := res[0]
	if r.Path != "auth/token.go" || r.Start != 3 || r.End != 4 || r.Symbol != "IssueToken" || r.Keyword != 1 ||
		r.Cosine <= 0 || r.Changed {
		t.Errorf("result %+v", r)
	}

	if err := os.WriteFile(filepath.Join(p.dir, "auth/token.go"), []byte("package auth\n\n// moved\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, _ = s.Search(t.Context(), codeindex.Query{Dir: p.dir, Root: p.ws.Root(), Text: "IssueToken"})
	if !res[0].Changed {
		t.Error("a file changed since it was indexed is not flagged")
	}
	p.update(t, p.options("embeddinggemma"))
	res, _ = s.Search(t.Context(), codeindex.Query{Dir: p.dir, Root: p.ws.Root(), Text: "sign a jwt access token"})
	for _, r := range res {
		if r.Path == "auth/token.go" && r.Symbol == "IssueToken" {
			t.Errorf("a chunk gone from the index is still found: %+v", r)
		}
	}
}

func TestSearchNoIndex(t *testing.T) {
	p := newProject(t, nil)
	s := codeindex.NewSearcher(p.db, p.emb)
	if _, err := s.Search(t.Context(), codeindex.Query{Dir: p.dir, Text: "x"}); !errors.Is(err, codeindex.ErrNoIndex) {
		t.Errorf("search without an index: %v", err)
	}
}
