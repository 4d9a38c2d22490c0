package engine

import (
	"path/filepath"

	"lathe/config"
	"lathe/tools/skill"
)

// skillRoom is what the skill tool's result takes beyond the skill's own
// bytes: the lines around it.
const skillRoom = 512

// Skills finds the Agent Skills of the project in dir and the user's own
// (beside the user's config file, in skills/); the warnings name each
// folder left out, and why.
func Skills(dir string, getenv func(string) string) (*skill.Catalog, []string) {
	user := ""
	if f := config.UserFile(getenv); f != "" {
		user = filepath.Join(filepath.Dir(f), "skills")
	}
	return skill.Load(skill.Dirs{Workspace: dir, User: user})
}

// SkillsBudget is how many bytes of the system prompt the skills' list
// may take: skills.budget of num_ctx, at about 4 bytes a token.
func SkillsBudget(cfg config.Config) int {
	return int(cfg.Skills.Budget * float64(cfg.Options.NumCtx) * 4)
}
