package skill

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"lathe/config/safefile"
	"lathe/prompts"
	"lathe/prompts/frontmatter"
	"lathe/prompts/human"
	"lathe/tools"
)

type skillArgs struct {
	Name string `json:"name"`
	File string `json:"file"`
}

// Tool is the skill tool, which loads a skill of c: its instructions, or
// a file beside them; a name no skill has finds those its words fit. Its
// results take at most limit bytes. It is offered only when there are
// skills.
func Tool(c *Catalog, limit int) tools.Tool {
	return optional{tools.Func("skill", "Load a skill's instructions by its name (or find skills by a few words); file reads a file beside them.",
		[]tools.Param{
			{Name: "name", Type: "string", Required: true, Description: "The skill's name, as listed"},
			{Name: "file", Type: "string", Description: "A file of the skill's folder, as its instructions name it"},
		}, tools.KindRead,
		func(a skillArgs) (tools.Call, error) {
			name := strings.TrimSpace(a.Name)
			if name == "" {
				return nil, fmt.Errorf("argument %q is empty: give a skill's name", "name")
			}
			return tools.RunFunc(name, func(context.Context, tools.Caller) (tools.Result, error) {
				return c.load(name, strings.TrimSpace(a.File), limit), nil
			}), nil
		}), c}
}

// optional is the tool, offered only when there are skills.
type optional struct {
	tools.Tool
	c *Catalog
}

// Available implements tools.Optional.
func (o optional) Available(context.Context) bool { return o.c.Len() > 0 }

// load answers a call: the skill, a file of it, or the skills that fit.
func (c *Catalog) load(name, file string, limit int) tools.Result {
	s, ok := c.Find(name)
	if !ok {
		return c.search(name)
	}
	if file != "" {
		return s.file(file, limit)
	}
	data, err := readSkillMD(s.root, s.rel, s.Project, int64(limit))
	if err != nil && !errors.Is(err, safefile.ErrTooLarge) {
		return tools.Errorf("not read", fmt.Sprintf("the skill %s cannot be read now: %v", name, err))
	}
	_, body, _ := frontmatter.Split(data)
	if body == nil {
		body = data
	}
	cut := errors.Is(err, safefile.ErrTooLarge)
	text := prompts.SkillText(prompts.SkillLoaded{Name: s.Name, Body: strings.TrimSpace(string(body)), Dir: s.Rel,
		Files: s.Files, Cut: cut, Size: int(s.Size), Shown: len(data)})
	summary := human.Bytes(int64(len(data)))
	if cut {
		summary += " of " + human.Bytes(s.Size)
	}
	return tools.Result{Content: text, Summary: summary}
}

// file reads a file beside the skill's SKILL.md, never through a link
// out of its folder.
func (s Skill) file(file string, limit int) tools.Result {
	clean := filepath.ToSlash(filepath.Clean(file))
	if !filepath.IsLocal(clean) {
		return tools.Errorf("outside the skill", fmt.Sprintf("%q is not a file of the skill %s's folder", file, s.Name))
	}
	b, err := safefile.Read(s.Dir, clean, int64(limit))
	cut := errors.Is(err, safefile.ErrTooLarge)
	if err != nil && !cut {
		return tools.Errorf("not read", fmt.Sprintf("%s of the skill %s: %v (its files: %s)", file, s.Name, err, strings.Join(s.Files, ", ")))
	}
	return tools.Result{Content: prompts.SkillFile(s.Name, clean, strings.TrimRight(string(b), "\n"), cut, len(b)),
		Summary: human.Bytes(int64(len(b)))}
}

// search finds the skills whose names and descriptions hold the most of
// query's words, five at most.
func (c *Catalog) search(query string) tools.Result {
	words := strings.Fields(strings.ToLower(strings.NewReplacer("-", " ", "_", " ").Replace(query)))
	type hit struct {
		s     Skill
		score int
	}
	var hits []hit
	for _, s := range c.skills {
		text := strings.ToLower(s.Name + " " + s.Description)
		n := 0
		for _, w := range words {
			if len(w) > 2 && strings.Contains(text, w) || w == strings.ToLower(s.Name) {
				n++
			}
		}
		if n > 0 {
			hits = append(hits, hit{s, n})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return b.score - a.score })
	var found []prompts.SkillEntry
	for _, h := range hits[:min(len(hits), 5)] {
		found = append(found, prompts.SkillEntry{Name: h.s.Name, Description: clip(h.s.Description, maxDescription)})
	}
	var names []string
	if len(found) == 0 {
		for _, s := range c.skills {
			names = append(names, s.Name)
		}
	}
	return tools.Result{Content: prompts.SkillsFound(query, found, names), Summary: human.Plural(len(found), "skill") + " found"}
}
