package memory

import (
	"context"

	"lathe/orchestrator/session"
	"lathe/prompts"
	"lathe/tools"
)

type rememberArgs struct {
	Fact string `json:"fact"`
}

// newRemember is remember: it keeps a fact about the project, once the
// user approved it; it goes into the system prompt of the project's next
// sessions, not this one's (whose prompt must stay the same for the
// server's cache).
func newRemember(o Options) tools.Tool {
	return aid{tools.Func("remember",
		"Propose a fact about this project or the user's ways (how tests run, what not to edit) for later sessions.",
		[]tools.Param{{Name: "fact", Type: "string", Required: true}}, tools.KindMemory,
		func(a rememberArgs) (tools.Call, error) {
			fact, err := session.CleanFact(a.Fact)
			if err != nil {
				return nil, err
			}
			return capped(fact, func(ctx context.Context, _ tools.Caller) (tools.Result, error) {
				if _, err := o.Facts.AddFact(ctx, o.Dir, fact, o.Now()); err != nil {
					return tools.Result{}, err
				}
				return tools.Result{Content: prompts.Remembered(), Summary: "remembered"}, nil
			}), nil
		})}
}
