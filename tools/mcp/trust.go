package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"lathe/config/safefile"
)

// TrustFileName is the file, in lathe's data directory, that keeps the
// project servers the user trusted. It is JSON:
//
//	{"version": 1,
//	 "projects": {
//	   "/home/me/api": {"servers": "sha256:…", "names": ["db", "fs"], "trusted": "2026-11-23T10:00:00Z"}}}
//
// servers is the digest of the servers' definitions (the caller's, as
// config.ServersDigest makes it): a project that changes them, or adds
// one, is asked about again.
const TrustFileName = "mcp-trust.json"

type trustDoc struct {
	Version  int                     `json:"version"`
	Projects map[string]trustedEntry `json:"projects"`
}

type trustedEntry struct {
	Servers string    `json:"servers"`
	Names   []string  `json:"names"`
	Trusted time.Time `json:"trusted"`
}

// Trusted reports whether the user trusted the project in dir with the
// servers whose digest is given, as the trust file at path says. A file
// that does not exist trusts nothing.
func Trusted(path, dir, digest string) (bool, error) {
	doc, err := readTrust(path)
	if err != nil {
		return false, err
	}
	e, ok := doc.Projects[dir]
	return ok && e.Servers == digest, nil
}

// Trust records that the user trusts the project in dir with the servers
// named, whose digest is given, in the trust file at path (made, with its
// directory, as needed; replaced whole).
func Trust(path, dir, digest string, names []string, now time.Time) error {
	doc, err := readTrust(path)
	if err != nil {
		return err
	}
	doc.Projects[dir] = trustedEntry{Servers: digest, Names: slices.Sorted(slices.Values(names)), Trusted: now.UTC()}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mcp-trust-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// maxTrustFile bounds what is read of the trust file.
const maxTrustFile = 1 << 20

func readTrust(path string) (trustDoc, error) {
	doc := trustDoc{Version: 1, Projects: map[string]trustedEntry{}}
	b, err := safefile.ReadPath(path, maxTrustFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return doc, nil
	case err != nil:
		return doc, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return trustDoc{Version: 1, Projects: map[string]trustedEntry{}}, fmt.Errorf("%s is damaged (%v): remove it, and trust the projects again", path, err)
	}
	if doc.Projects == nil {
		doc.Projects = map[string]trustedEntry{}
	}
	return doc, nil
}
