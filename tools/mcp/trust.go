package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"time"

	"lathe/config/safefile"
)

// TrustFileName is the file, in lathe's data directory, that keeps the
// servers the user trusted, per project. It is JSON:
//
//	{"version": 2,
//	 "projects": {
//	   "/home/me/api": {"servers": {"db": "sha256:…", "fs": "sha256:…"}, "lsp": {"rb": "sha256:…"},
//	                    "trusted": "2026-11-23T10:00:00Z"}}}
//
// Each server's digest is its Seal's: its definition and the files of the
// project it runs. A server whose seal changed, or one the project adds,
// is asked about again. The language servers that need trust (see
// engine.LSPServers) are kept the same way, under "lsp". A file of
// version 1, whose digests covered the definitions alone, trusts
// nothing.
const TrustFileName = "mcp-trust.json"

const trustVersion = 2

type trustDoc struct {
	Version  int                     `json:"version"`
	Projects map[string]trustedEntry `json:"projects"`
}

type trustedEntry struct {
	Servers map[string]string `json:"servers"`
	LSP     map[string]string `json:"lsp,omitempty"`
	Trusted time.Time         `json:"trusted"`
}

// Sealed returns the seals the user trusted the servers of the project in
// dir with, by name, as the trust file at path says; none when the file
// does not exist.
func Sealed(path, dir string) (map[string]string, error) {
	doc, err := readTrust(path)
	if err != nil {
		return nil, err
	}
	return doc.Projects[dir].Servers, nil
}

// SealedLSP returns the seals the user trusted the language servers of
// the project in dir with, by name, as the trust file at path says.
func SealedLSP(path, dir string) (map[string]string, error) {
	doc, err := readTrust(path)
	if err != nil {
		return nil, err
	}
	return doc.Projects[dir].LSP, nil
}

// Trust records that the user trusts the servers of the project in dir
// with their seals (by name), in the trust file at path (made, with its
// directory, as needed; replaced whole); its language servers' stay.
func Trust(path, dir string, seals map[string]string, now time.Time) error {
	return update(path, dir, now, func(e *trustedEntry) { e.Servers = maps.Clone(seals) })
}

// TrustLSP records that the user trusts the language servers of the
// project in dir with their seals (by name), added to those trusted
// before, in the trust file at path; its MCP servers' stay.
func TrustLSP(path, dir string, seals map[string]string, now time.Time) error {
	return update(path, dir, now, func(e *trustedEntry) {
		if e.LSP == nil {
			e.LSP = map[string]string{}
		}
		maps.Copy(e.LSP, seals)
	})
}

// update changes the entry of dir in the trust file at path.
func update(path, dir string, now time.Time, change func(*trustedEntry)) error {
	doc, err := readTrust(path)
	if err != nil {
		return err
	}
	e := doc.Projects[dir]
	change(&e)
	e.Trusted = now.UTC()
	doc.Projects[dir] = e
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return safefile.Replace(path, append(b, '\n'))
}

// maxTrustFile bounds what is read of the trust file.
const maxTrustFile = 1 << 20

func readTrust(path string) (trustDoc, error) {
	fresh := func() trustDoc { return trustDoc{Version: trustVersion, Projects: map[string]trustedEntry{}} }
	b, err := safefile.ReadPath(path, maxTrustFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fresh(), nil
	case err != nil:
		return fresh(), fmt.Errorf("read %s: %w", path, err)
	}
	var v struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fresh(), fmt.Errorf("%s is damaged (%v): remove it, and trust the projects again", path, err)
	}
	if v.Version < trustVersion {
		return fresh(), nil // its trust did not cover what the servers run
	}
	doc := fresh()
	if err := json.Unmarshal(b, &doc); err != nil {
		return fresh(), fmt.Errorf("%s is damaged (%v): remove it, and trust the projects again", path, err)
	}
	if doc.Projects == nil {
		doc.Projects = map[string]trustedEntry{}
	}
	return doc, nil
}
