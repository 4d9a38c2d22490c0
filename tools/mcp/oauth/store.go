package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	"lathe/config/safefile"
)

// Store keeps each server's authorization in a file of its own, NAME.json
// in Dir, which only the user may read (0600, in a directory of 0700).
// Dir is in lathe's data directory, which the sandbox keeps commands
// from. A file is replaced whole, so that two runs never leave half of one.
type Store struct {
	Dir string
}

// Record is what lathe keeps of its authorization with one server.
type Record struct {
	// URL is the server's: a record is only ever used for the URL it was
	// made for, whatever the server is called now.
	URL string `json:"url"`
	// Resource is the resource indicator tokens were asked for.
	Resource string `json:"resource,omitempty"`
	Issuer   string `json:"issuer,omitempty"`
	// TokenEndpoint, ClientID, ClientSecret (one lathe registered, never
	// the config's) and AuthMethod are what a refresh needs.
	TokenEndpoint string `json:"token_endpoint,omitempty"`
	ClientID      string `json:"client_id,omitempty"`
	ClientSecret  string `json:"client_secret,omitempty"`
	AuthMethod    string `json:"token_endpoint_auth_method,omitempty"`

	AccessToken  string    `json:"access_token,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	// Scopes are those granted (or, when the server did not say, asked).
	Scopes []string `json:"scopes,omitempty"`

	// Wanted are the scopes the server asked for more of, and Challenge
	// the WWW-Authenticate it last answered with: the next login asks
	// for them.
	Wanted    []string `json:"wanted_scopes,omitempty"`
	Challenge []string `json:"challenge,omitempty"`
}

// valid reports whether the record's access token may be sent at now:
// there is one, and it does not end within 10 seconds.
func (r *Record) valid(now time.Time) bool {
	return r != nil && r.AccessToken != "" && (r.Expiry.IsZero() || now.Add(10*time.Second).Before(r.Expiry))
}

// maxRecord bounds what is read of a record.
const maxRecord = 1 << 20

func (s Store) path(name string) string { return filepath.Join(s.Dir, name+".json") }

// serverName is what a server may be called (as the config checks it):
// a name that could lead out of Dir is refused.
var serverName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$`)

func checkName(name string) error {
	if !serverName.MatchString(name) {
		return fmt.Errorf("%q is not an MCP server's name", name)
	}
	return nil
}

// Load returns the record kept for the server name made for url; nil when
// there is none, or it was made for another URL.
func (s Store) Load(name, url string) (*Record, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	b, err := safefile.ReadPath(s.path(name), maxRecord)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", s.path(name), err)
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v): lathe mcp logout %s removes it", s.path(name), err, name)
	}
	if r.URL != url {
		return nil, nil
	}
	return &r, nil
}

// Save keeps r as the server name's record.
func (s Store) Save(name string, r *Record) error {
	if err := checkName(name); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	return safefile.Replace(s.path(name), append(b, '\n')) // 0600
}

// Delete removes the server name's record, reporting whether there was one.
func (s Store) Delete(name string) (bool, error) {
	if err := checkName(name); err != nil {
		return false, err
	}
	err := os.Remove(s.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// Path is the file of the server name's record.
func (s Store) Path(name string) string { return s.path(name) }

// union is a's scopes, then those of b not in a.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// subset reports whether every scope of a is in b.
func subset(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}
