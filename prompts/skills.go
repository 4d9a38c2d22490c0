package prompts

// SkillEntry is a skill as the system prompt lists it.
type SkillEntry struct {
	Name, Description string
}

// SkillsView is as much of the skills' list as fits its budget: every
// skill with its description, or only their names (Names), or only how
// many there are (Count, List empty); the zero value lists none.
type SkillsView struct {
	List  []SkillEntry
	Names bool
	Count int
}

// Skills is the skills' part of the system prompt; "" for none.
func Skills(v SkillsView) string {
	if len(v.List) == 0 && v.Count == 0 {
		return ""
	}
	return note("skills_list", v)
}

// SkillLoaded is what the skill tool returns of a skill: its SKILL.md
// without the front matter (Cut: only the first Shown of its Size bytes),
// and the files beside it; Dir, when the project holds it, is where
// read_file finds them.
type SkillLoaded struct {
	Name, Body, Dir string
	Files           []string
	Cut             bool
	Size, Shown     int
}

// SkillText renders a skill loaded.
func SkillText(s SkillLoaded) string { return note("skill_loaded", s) }

// SkillFile is a file beside a skill's SKILL.md, read through the skill
// tool.
func SkillFile(name, file, body string, cut bool, shown int) string {
	return note("skill_file", struct {
		Name, File, Body string
		Cut              bool
		Shown            int
	}{name, file, body, cut, shown})
}

// SkillsFound answers the skill tool given a name no skill has: the skills
// that fit its words best, or every name when none does.
func SkillsFound(query string, found []SkillEntry, names []string) string {
	return note("skills_found", struct {
		Query string
		Found []SkillEntry
		Names []string
	}{query, found, names})
}
