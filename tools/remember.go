package tools

import (
	"context"
	"encoding/json"

	"lathe/orchestrator/session"
	"lathe/prompts"
)

func rememberSpec() spec {
	return spec{
		name: "remember",
		desc: "Propose a fact about this project or the user's ways (how tests run, what not to edit) for later sessions.",
		params: []param{
			{name: "fact", typ: typeString, required: true},
		},
	}
}

type rememberArgs struct {
	Fact string `json:"fact"`
}

// remember keeps a fact about the project, once the user approved it; it
// goes into the system prompt of the project's next sessions, not this
// one's (whose prompt must stay the same for the server's cache).
type remember struct {
	base
	m Memory
}

func newRemember(m Memory) *remember {
	return &remember{base: newBase(rememberSpec(), memoryOutput), m: m}
}

func (*remember) Kind() Kind { return KindMemory }

func (t *remember) Prepare(raw json.RawMessage) (Call, error) {
	return prepare(&t.base, raw, func(a rememberArgs) (Call, error) {
		fact, err := session.CleanFact(a.Fact)
		if err != nil {
			return nil, err
		}
		return RunFunc(fact, func(ctx context.Context, _ Caller) (Result, error) {
			if _, err := t.m.Facts.AddFact(ctx, t.m.Dir, fact, t.m.Now()); err != nil {
				return Result{}, err
			}
			return Result{Content: prompts.Remembered(), Summary: "remembered"}, nil
		}), nil
	})
}
