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
	info, ok := modelToUse(ctx, p, cfg, "the first the server serves", add)
	if !ok {
		return
	}
	add(check{Name: "window", OK: true, Detail: windowDetail(info, cfg)})
	for _, n := range info.Notes {
		add(check{Name: "server", Detail: n})
	}
}

// modelToUse says which model lathe would use, and why: as configured, or
// chosen as the server allows (chosen says how); false when there is none.
func modelToUse(ctx context.Context, p provider.Provider, cfg config.Config, chosen string, add func(check)) (provider.ModelInfo, bool) {
	info, err := p.Model(ctx, cfg.Model)
	if err != nil {
		add(check{Name: "model to use", Detail: err.Error(), fatal: true})
		return info, false
	}
	why := "as configured"
	if cfg.Model == "" {
		why = "chosen: " + chosen + " (set model in your config, or -m, to choose)"
	}
	add(check{Name: "model to use", OK: true, Detail: info.Name + ", " + why, Model: useFacts(info)})
	return info, true
}

// windowDetail says where the window lathe uses comes from: the server's
// window (its -c, not the length the model was trained for), capped at
// options.num_ctx.
func windowDetail(info provider.ModelInfo, cfg config.Config) string {
	var from []string
	if info.ServerWindow > 0 {
		from = append(from, "the server's window "+human.Thousands(info.ServerWindow))
	}
	from = append(from, "options.num_ctx "+human.Thousands(cfg.Options.NumCtx))
	if info.ContextLength > max(info.ServerWindow, info.NumCtx) {
		from = append(from, "the model was trained for "+human.Thousands(info.ContextLength))
	}
	return fmt.Sprintf("%s tokens (%s)", human.Thousands(info.NumCtx), strings.Join(from, ", "))
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
