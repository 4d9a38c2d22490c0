package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"lathe/config"
	"lathe/orchestrator/engine"
	"lathe/prompts"
	"lathe/prompts/human"
	"lathe/tools/skill"
)

// skillsList is lathe skills list: the Agent Skills found, where from,
// and what their list takes of the system prompt.
type skillsList struct {
	f    *Factory
	json bool
}

func newSkillsList(f *Factory) command { return &skillsList{f: f} }

func (c *skillsList) define(fs *pflag.FlagSet) {
	c.f.dirFlag(fs)
	fs.BoolVar(&c.json, "json", false, "")
}

func (c *skillsList) words(args []string) error  { return noWords("skills list", args) }
func (c *skillsList) check(*pflag.FlagSet) error { return nil }

func (c *skillsList) run(context.Context) error {
	f := c.f
	loaded, err := f.Config()
	if err != nil {
		return err
	}
	for _, w := range loaded.Warnings {
		f.warn(w)
	}
	cat, warnings := engine.Skills(f.Dir, f.Env.get)
	for _, w := range warnings {
		f.warn(w)
	}
	if c.json {
		return writeSkillsJSON(f.Out, cat.All())
	}
	return writeSkillsText(f.Out, cat, loaded.Config, f.Dir, f.Env.get("HOME"))
}

// writeSkillsText prints the skills as a table, and the cost of their
// list.
func writeSkillsText(w io.Writer, cat *skill.Catalog, cfg config.Config, dir, home string) error {
	if cat.Len() == 0 {
		_, err := fmt.Fprintln(w, "No skill is found: put a folder with a SKILL.md in .lathe/skills, .agents/skills, "+
			".claude/skills or ~/.config/lathe/skills (see the README's Skills section).")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tDESCRIPTION\tFROM\tSIZE")
	for _, s := range cat.All() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", human.Visible(s.Name), human.Line(human.Visible(s.Description), 60),
			human.Path(s.Dir, dir, home), human.Bytes(s.Size))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	budget := engine.SkillsBudget(cfg)
	view := cat.View(budget)
	shown := "with their descriptions"
	switch {
	case view.Names:
		shown = "their names only (the descriptions do not fit)"
	case len(view.List) == 0:
		shown = "only how many there are: the model finds them with the skill tool"
	}
	if !cfg.Skills.Enabled {
		shown = "none: [skills] enabled = false"
	}
	_, err := fmt.Fprintf(w, "Their list takes ~%s tokens of the system prompt, within %s (skills.budget %g of options.num_ctx %s): %s\n",
		human.Thousands(len(prompts.Skills(view))/4), human.Thousands(budget/4), cfg.Skills.Budget,
		human.Thousands(cfg.Options.NumCtx), shown)
	return err
}

// skillJSON is a skill as lathe skills list --json prints it.
type skillJSON struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Dir         string   `json:"dir"`
	Project     bool     `json:"project"`
	Bytes       int64    `json:"bytes"`
	Files       []string `json:"files"`
}

func writeSkillsJSON(w io.Writer, list []skill.Skill) error {
	out := make([]skillJSON, 0, len(list))
	for _, s := range list {
		files := s.Files
		if files == nil {
			files = []string{}
		}
		out = append(out, skillJSON{s.Name, s.Description, s.Dir, s.Project, s.Size, files})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
