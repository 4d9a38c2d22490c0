package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/images"
	"lathe/prompts"
)

// Default returns the registry of the seven tools followed by more, in
// the order their definitions are sent: read_file, write_file, edit_file,
// list_dir, glob, grep, shell, then more (the memory tools, say). Every
// tool of the seven works inside ws; while commands are sandboxed, the file
// tools leave alone what the sandbox protects.
func Default(ws *Workspace, opts Options, more ...Tool) *Registry {
	opts = opts.withDefaults()
	limit := opts.MaxOutputBytes
	prot := newProtection(ws, opts.Confinement)
	return NewRegistry(append([]Tool{
		&readFile{base: newBase(readFileSpec(opts.ReadLimit), limit), ws: ws, opts: opts, images: images.NewBudget()},
		&writeFile{base: newBase(writeFileSpec(), limit), ws: ws, prot: prot},
		&editFile{base: newBase(editFileSpec(), limit), ws: ws, prot: prot},
		&listDir{base: newBase(listDirSpec(), limit), ws: ws},
		&globTool{base: newBase(globSpec(), limit), ws: ws},
		&grepTool{base: newBase(grepSpec(), limit), ws: ws, opts: opts},
		&shellTool{base: newBase(shellSpec(opts.ShellTimeout), limit), ws: ws, opts: opts},
	}, more...)...)
}

// base holds what every tool has: its spec, the schema built from it once
// (so that Spec returns the same value on every call), and the cap on what
// its calls send back.
type base struct {
	spec  spec
	def   provider.ToolSpec
	limit int
}

func newBase(s spec, limit int) base { return base{spec: s, def: s.toolSpec(), limit: limit} }

// Name implements Tool.
func (b *base) Name() string { return b.spec.name }

// Spec implements Tool.
func (b *base) Spec() provider.ToolSpec { return b.def }

// prepare decodes args into T and runs check on them. It is the one place
// every tool's Prepare goes through: errors and results are capped to the
// tool's limit here whatever the tool does, and the model is told what was
// repaired in its arguments and which ones were ignored.
func prepare[T any](b *base, raw json.RawMessage, check func(T) (Call, error)) (Call, error) {
	args, rep, err := decodeArgs[T](raw, b.spec.params)
	var call Call
	if err == nil {
		call, err = check(args)
	}
	if refused := (*RefusedError)(nil); errors.As(err, &refused) {
		return nil, &RefusedError{Subject: refused.Subject, Err: errors.New(Cap(err.Error(), b.limit))}
	}
	if err != nil {
		return nil, errors.New(Cap(err.Error(), b.limit))
	}
	return capped{Call: call, limit: b.limit, repairs: rep.all(), note: rep.note()}, nil
}

// all returns every repair, the ignored arguments included, as
// Result.Repairs lists them.
func (r argReport) all() []string {
	all := slices.Clip(r.repairs)
	if len(r.unknown) > 0 {
		all = append(all, "ignored unknown argument(s): "+listNames(r.unknown))
	}
	return all
}

// note is what the model is told about its arguments, after the result.
func (r argReport) note() string {
	var b strings.Builder
	if len(r.repairs) > 0 {
		b.WriteString(prompts.ArgumentsRepaired(r.repairs))
	}
	if len(r.unknown) > 0 {
		b.WriteString(prompts.ArgumentsIgnored(listNames(r.unknown)))
	}
	return b.String()
}

// listNames joins argument names for a note, each clipped and at most ten.
func listNames(names []string) string {
	const most = 10
	shown := make([]string, 0, most+1)
	for _, n := range names[:min(len(names), most)] {
		shown = append(shown, clip(n, 40))
	}
	if len(names) > most {
		shown = append(shown, fmt.Sprintf("and %d more", len(names)-most))
	}
	return strings.Join(shown, ", ")
}

// capped is a call whose result is capped and gets the repairs made to its
// arguments: listed in Repairs, before the call's own, and told in a note.
type capped struct {
	Call
	limit   int
	repairs []string
	note    string
}

// Unwrap returns the tool's own call, for callers that handle calls of
// their own tools themselves (see Func).
func (c capped) Unwrap() Call { return c.Call }

func (c capped) Run(ctx context.Context, caller Caller) (Result, error) {
	res, err := c.Call.Run(ctx, caller)
	res.Content = Cap(res.Content, c.limit) + c.note
	if len(c.repairs) > 0 {
		res.Repairs = append(slices.Clone(c.repairs), res.Repairs...)
	}
	return res, err
}

var (
	_ Tool = (*readFile)(nil)
	_ Tool = (*writeFile)(nil)
	_ Tool = (*editFile)(nil)
	_ Tool = (*listDir)(nil)
	_ Tool = (*globTool)(nil)
	_ Tool = (*grepTool)(nil)
	_ Tool = (*shellTool)(nil)
)
