package cli

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"lathe/config"
	"lathe/orchestrator/engine"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/openai"
	"lathe/prompts/human"
)

// checkOpenAI checks an OpenAI-compatible server: what it is, what it
// serves, and the model and window lathe would use.
func checkOpenAI(ctx context.Context, c *openai.Client, cfg config.Config, add func(check)) {
	kind, err := c.Kind(ctx)
	if err != nil {
		add(check{Name: "server", Detail: err.Error(), fatal: true})
		return
	}
	add(check{Name: "server", OK: true, Detail: fmt.Sprintf("%s at %s", kind, c.URL())})
	models, err := c.Models(ctx)
	if err != nil {
		add(check{Name: "models", Detail: err.Error()})
		return
	}
	for _, m := range models {
		info, _ := c.Model(ctx, m.Name)
		what := capabilityList(info)
		if info.NumCtx > 0 {
			what += ", window " + human.Thousands(info.NumCtx)
		}
		add(check{Name: "model", OK: m.Tools, Detail: m.Name + ": " + what, Model: factsOf(info, &m)})
	}
	checkModelToUse(ctx, c, cfg, add)
}

// checkModelToUse says which model lathe would use, with its window and
// what the server said of itself.
func checkModelToUse(ctx context.Context, p provider.Provider, cfg config.Config, add func(check)) {
	info, err := p.Model(ctx, cfg.Model)
	if err != nil {
		add(check{Name: "model to use", Detail: err.Error(), fatal: true})
		return
	}
	why := "as configured"
	if cfg.Model == "" {
		why = "chosen: the first the server serves (set model in your config, or -m, to choose)"
	}
	add(check{Name: "model to use", OK: true, Detail: info.Name + ", " + why, Model: useFacts(info)})
	detail := fmt.Sprintf("%s tokens (options.num_ctx %s", human.Thousands(info.NumCtx), human.Thousands(cfg.Options.NumCtx))
	if info.ContextLength > 0 {
		detail += ", the server's " + human.Thousands(info.ContextLength)
	}
	add(check{Name: "window", OK: true, Detail: detail + ")"})
	for _, n := range info.Notes {
		add(check{Name: "server", Detail: n})
	}
}

// checkHosts lists each of [[hosts]]: whether it answers, what it serves
// and has loaded; then the host and model lathe would use.
func checkHosts(ctx context.Context, be engine.Backend, cfg config.Config, add func(check)) {
	up := 0
	for i, st := range be.Pool.Statuses(ctx) {
		name := fmt.Sprintf("host %d", i+1)
		if st.Err != nil {
			add(check{Name: name, Detail: st.Err.Error()})
			continue
		}
		up++
		var served []string
		for _, m := range slices.Sorted(maps.Keys(st.Served)) {
			if st.Served[m] {
				m += " (loaded)"
			}
			served = append(served, m)
		}
		list := "serves no model"
		if len(served) > 0 {
			list = "serves " + strings.Join(served, ", ")
		}
		add(check{Name: name, OK: len(served) > 0, Detail: fmt.Sprintf("%s %s: %s", cfg.Hosts[i].Provider, st.URL, list)})
	}
	if up == 0 {
		add(check{Name: "hosts", Detail: "no host answers", fatal: true})
		return
	}
	checkModelToUse(ctx, be.Pool, cfg, add)
	if h, ok := be.Pool.Current(); ok {
		add(check{Name: "host to use", OK: true, Detail: h.URL})
	}
}
