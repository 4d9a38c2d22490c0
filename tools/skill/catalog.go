// Package skill offers the Agent Skills found in the project's and the
// user's skill folders: each a folder with a SKILL.md (name and
// description in its front matter, instructions in its body) and files
// beside it. The system prompt lists them within a budget; the skill tool
// loads one when the model needs it.
package skill

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"lathe/config/safefile"
	"lathe/prompts"
	"lathe/prompts/frontmatter"
)

// Skill is one skill found.
type Skill struct {
	Name, Description string
	// Dir is the skill's folder; Rel is it relative to the workspace for
	// the project's skills ("" for the user's).
	Dir, Rel string
	Size     int64 // of its SKILL.md
	Project  bool
	root     string // the folder it was found under, and
	rel      string // its folder, relative to root
	// Files are the files beside SKILL.md, relative to Dir, in order.
	Files []string
}

// Catalog is the skills found, by name.
type Catalog struct {
	skills []Skill
}

// Dirs are where skills are found, the first folder to name a skill
// winning.
type Dirs struct {
	// Workspace is the project: its .lathe/skills, .agents/skills and
	// .claude/skills.
	Workspace string
	// User is the user's own folder (~/.config/lathe/skills).
	User string
}

// ProjectDirs are the project's folders of skills, relative to it: lathe's
// own, then the folders other agents read.
var ProjectDirs = []string{".lathe/skills", ".agents/skills", ".claude/skills"}

const (
	// maxFront is how much of a SKILL.md is read for its front matter.
	maxFront = 64 << 10
	// maxFiles is how many files beside a SKILL.md are listed.
	maxFiles = 50
	// maxDescription is how much of a description the list shows.
	maxDescription = 300
)

// Load finds the skills. A folder without a SKILL.md, a SKILL.md that
// cannot be read (a link out of the project) or without a description,
// and a name an earlier folder took are left out with a warning naming
// the file.
func Load(dirs Dirs) (*Catalog, []string) {
	c := &Catalog{}
	var warnings []string
	seen := map[string]string{}
	add := func(s Skill, err error) {
		switch {
		case err != nil:
			warnings = append(warnings, err.Error())
		case seen[s.Name] != "":
			warnings = append(warnings, fmt.Sprintf("%s: left out: the skill %s is %s already", s.Dir, s.Name, seen[s.Name]))
		default:
			seen[s.Name] = s.Dir
			c.skills = append(c.skills, s)
		}
	}
	if dirs.Workspace != "" {
		for _, rel := range ProjectDirs {
			scan(dirs.Workspace, rel, true, add)
		}
	}
	if dirs.User != "" {
		scan(dirs.User, ".", false, add)
	}
	slices.SortFunc(c.skills, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	return c, warnings
}

// scan reads the skills of the folders in root/rel.
func scan(root, rel string, project bool, add func(Skill, error)) {
	base := filepath.Join(root, rel)
	entries, err := os.ReadDir(base)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			add(Skill{}, fmt.Errorf("%s: not read: %w", base, err))
		}
		return
	}
	for _, e := range entries {
		if !e.IsDir() && !(!project && isDirLink(filepath.Join(base, e.Name()))) {
			continue // a project's link to a folder is not followed: it could lead anywhere
		}
		add(read(root, filepath.Join(rel, e.Name()), project))
	}
}

// isDirLink reports whether path is a link to a folder.
func isDirLink(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	fi, err = os.Stat(path)
	return err == nil && fi.IsDir()
}

// front is a SKILL.md's front matter.
type front struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

// read reads one skill's folder.
func read(root, rel string, project bool) (Skill, error) {
	dir := filepath.Join(root, rel)
	path := filepath.Join(dir, "SKILL.md")
	data, err := readSkillMD(root, rel, project, maxFront)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Skill{}, fmt.Errorf("%s: left out: the folder has no SKILL.md", dir)
	case err != nil && !errors.Is(err, safefile.ErrTooLarge):
		return Skill{}, fmt.Errorf("%s: not read: %w", path, err)
	}
	var f front
	if _, err := frontmatter.Parse(data, &f); err != nil {
		if fe := (*frontmatter.Error)(nil); errors.As(err, &fe) && fe.Line > 0 {
			return Skill{}, fmt.Errorf("%s:%d: its front matter is broken (%s): left out", path, fe.Line, fe.Msg)
		}
		return Skill{}, fmt.Errorf("%s: its front matter is broken (%v): left out", path, err)
	}
	s := Skill{Name: strings.TrimSpace(f.Name), Description: strings.Join(strings.Fields(f.Description), " "),
		Dir: dir, Project: project}
	if s.Name == "" {
		s.Name = filepath.Base(dir)
	}
	if s.Description == "" {
		return Skill{}, fmt.Errorf("%s: left out: its front matter has no description, which says when to use it", path)
	}
	if project {
		s.Rel = filepath.ToSlash(rel)
	}
	s.root, s.rel = root, rel
	if fi, err := os.Stat(path); err == nil {
		s.Size = fi.Size()
	}
	s.Files = besides(dir)
	return s, nil
}

// readSkillMD reads the SKILL.md of the folder root/rel, at most limit
// bytes: a project's through the project (no link leads out of it), the
// user's wherever its links lead.
func readSkillMD(root, rel string, project bool, limit int64) ([]byte, error) {
	if project {
		return safefile.Read(root, filepath.ToSlash(filepath.Join(rel, "SKILL.md")), limit)
	}
	return safefile.ReadPath(filepath.Join(root, rel, "SKILL.md"), limit)
}

// besides lists the regular files in dir and below, SKILL.md aside,
// without following links.
func besides(dir string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || len(out) >= maxFiles:
			return filepath.SkipDir
		case d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != dir:
			return filepath.SkipDir
		case !d.Type().IsRegular():
			return nil
		}
		if rel, _ := filepath.Rel(dir, path); rel != "SKILL.md" {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

// All returns the skills, by name.
func (c *Catalog) All() []Skill { return slices.Clone(c.skills) }

// Len is how many skills there are.
func (c *Catalog) Len() int { return len(c.skills) }

// Find returns the skill named name.
func (c *Catalog) Find(name string) (Skill, bool) {
	i := slices.IndexFunc(c.skills, func(s Skill) bool { return s.Name == name })
	if i < 0 {
		return Skill{}, false
	}
	return c.skills[i], true
}

// View is as much of the list as fits in budget bytes of the system
// prompt: every skill with its description (cut to maxDescription), else
// only the names, else only how many there are (the model then finds
// them with the tool).
func (c *Catalog) View(budget int) prompts.SkillsView {
	if len(c.skills) == 0 {
		return prompts.SkillsView{}
	}
	full := prompts.SkillsView{}
	names := prompts.SkillsView{Names: true}
	for _, s := range c.skills {
		full.List = append(full.List, prompts.SkillEntry{Name: s.Name, Description: clip(s.Description, maxDescription)})
		names.List = append(names.List, prompts.SkillEntry{Name: s.Name})
	}
	switch {
	case len(prompts.Skills(full)) <= budget:
		return full
	case len(prompts.Skills(names)) <= budget:
		return names
	}
	return prompts.SkillsView{Count: len(c.skills)}
}

// clip cuts s to about n bytes, at a word, with an ellipsis.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut < n/2 {
		cut = n
	}
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
