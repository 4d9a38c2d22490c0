// Package hosts puts several model servers behind one provider.Provider: for
// a model it picks the first host that serves it, preferring one that has
// it loaded already, and fails over to the next host when one cannot be
// reached before a request starts (never once a reply has begun).
package hosts

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"lathe/orchestrator/provider"
)

// Host is one server of the pool.
type Host struct {
	// URL names the host in messages.
	URL string
	// Provider is the host's backend. To be asked what it serves, it
	// implements Lister (both of lathe's backends do).
	Provider provider.Provider
	// Models, when set, are the models the host serves: it is not asked.
	Models []string
}

// Lister says what a host serves, and which of those it has loaded.
type Lister interface {
	Served(ctx context.Context) (map[string]bool, error)
}

// Pool is the hosts as one provider. It is safe for concurrent use.
type Pool struct {
	hosts []Host

	mu        sync.Mutex
	current   int // the host in use; -1 before the first choice
	embedding int // the host that makes embeddings; -1 before the first choice
}

var (
	_ provider.Provider = (*Pool)(nil)
	_ provider.Puller   = (*Pool)(nil)
)

// New returns the pool of hosts, in order of preference.
func New(hosts []Host) *Pool { return &Pool{hosts: hosts, current: -1, embedding: -1} }

// Current is the host in use, and whether one was chosen.
func (p *Pool) Current() (Host, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.current < 0 {
		return Host{}, false
	}
	return p.hosts[p.current], true
}

// URL is the host in use's URL, or the first host's before a choice.
func (p *Pool) URL() string {
	if h, ok := p.Current(); ok {
		return h.URL
	}
	return p.hosts[0].URL
}

// Status is what one host answered, for lathe doctor.
type Status struct {
	Host
	Served map[string]bool // model → loaded
	Err    error
}

// Statuses asks every host what it serves.
func (p *Pool) Statuses(ctx context.Context) []Status {
	out := make([]Status, len(p.hosts))
	for i, h := range p.hosts {
		out[i].Host = h
		out[i].Served, out[i].Err = served(ctx, h)
	}
	return out
}

// served is what h serves: its configured models (none loaded, as far as
// lathe knows), or what it says.
func served(ctx context.Context, h Host) (map[string]bool, error) {
	l, ok := h.Provider.(Lister)
	if !ok {
		out := map[string]bool{}
		for _, m := range h.Models {
			out[m] = false
		}
		return out, nil
	}
	got, err := l.Served(ctx)
	if err != nil || len(h.Models) == 0 {
		return got, err
	}
	out := map[string]bool{} // only those configured
	for _, m := range h.Models {
		_, out[m], _ = provider.FindModel(got, m)
	}
	return out, nil
}

// choose picks the host for model, skipping the hosts in skip: the first
// that serves it and has it loaded, else the first that serves it. For
// model "", the first host that answers. Hosts configured with a model
// list are asked only when the list names the model.
func (p *Pool) choose(ctx context.Context, model string, skip []int) (int, error) {
	var why []string
	first, down := -1, 0
	for i, h := range p.hosts {
		if slices.Contains(skip, i) {
			continue
		}
		if model != "" && len(h.Models) > 0 && !slices.ContainsFunc(h.Models, same(model)) {
			why = append(why, h.URL+": not among its models")
			continue
		}
		got, err := served(ctx, h)
		switch {
		case ctx.Err() != nil:
			return -1, ctx.Err()
		case err != nil:
			if errors.Is(err, provider.ErrUnreachable) {
				down++
			}
			why = append(why, h.URL+": "+err.Error())
			continue
		case model == "":
			return i, nil
		}
		_, loaded, ok := provider.FindModel(got, model)
		switch {
		case !ok:
			why = append(why, h.URL+": does not serve it")
		case loaded:
			return i, nil
		case first < 0:
			first = i
		}
	}
	if first >= 0 {
		return first, nil
	}
	kind := provider.ErrModelNotFound
	what := fmt.Sprintf("no host serves model %q", model)
	switch {
	case down > 0 && down == len(why):
		kind, what = provider.ErrUnreachable, "no host can be reached"
	case model == "":
		kind, what = provider.ErrUnreachable, "no host answers"
	}
	return -1, provider.Errorf(kind, nil, "%s (%s)", what, strings.Join(why, "; "))
}

// same matches the names of model, with or without its tag.
func same(model string) func(string) bool {
	return func(name string) bool { return provider.SameModel(name, model) }
}

// use makes host i the one in use.
func (p *Pool) use(i int) provider.Provider {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.current = i
	return p.hosts[i].Provider
}

// Model implements provider.Provider: it chooses the host, then asks it
// about the model; a host that cannot be reached meanwhile is passed over.
func (p *Pool) Model(ctx context.Context, name string) (provider.ModelInfo, error) {
	var skip []int
	for {
		i, err := p.choose(ctx, name, skip)
		if err != nil {
			return provider.ModelInfo{Name: name}, err
		}
		info, err := p.use(i).Model(ctx, name)
		if !errors.Is(err, provider.ErrUnreachable) {
			return info, err
		}
		skip = append(skip, i)
	}
}

// Chat implements provider.Provider on the host in use. When that host
// cannot be reached, before anything of a reply came, the request goes
// to the next host that serves the model; once a reply has begun, a
// failure is the reply's.
func (p *Pool) Chat(ctx context.Context, req *provider.Request, fn func(provider.Chunk) error) error {
	p.mu.Lock()
	i := p.current
	p.mu.Unlock()
	var skip []int
	if i < 0 {
		var err error
		if i, err = p.choose(ctx, req.Model.Name, nil); err != nil {
			return err
		}
	}
	var errs []string
	for {
		started := false
		err := p.use(i).Chat(ctx, req, func(c provider.Chunk) error {
			started = true
			return fn(c)
		})
		if started || !errors.Is(err, provider.ErrUnreachable) {
			return err
		}
		errs = append(errs, err.Error())
		skip = append(skip, i)
		next, cerr := p.choose(ctx, req.Model.Name, skip)
		if cerr != nil {
			return provider.Errorf(provider.ErrUnreachable, err, "%s; and no other host could take the request (%s)",
				strings.Join(errs, "; "), cerr.Error())
		}
		i = next
	}
}

// Models implements provider.Provider: the models of every host that
// answers, each once, in the order of the hosts.
func (p *Pool) Models(ctx context.Context) ([]provider.ModelSummary, error) {
	var out []provider.ModelSummary
	var firstErr error
	answered := false
	for _, h := range p.hosts {
		list, err := h.Provider.Models(ctx)
		if err != nil {
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		answered = true
		for _, m := range list {
			if len(h.Models) > 0 && !slices.ContainsFunc(h.Models, same(m.Name)) {
				continue
			}
			if !slices.ContainsFunc(out, func(o provider.ModelSummary) bool { return provider.SameModel(o.Name, m.Name) }) {
				out = append(out, m)
			}
		}
	}
	if !answered {
		return nil, firstErr
	}
	return out, nil
}

// Pull implements provider.Puller on the host in use, when it can pull.
func (p *Pool) Pull(ctx context.Context, name string, progress func(provider.PullProgress)) error {
	h, ok := p.Current()
	if !ok {
		h = p.hosts[0]
	}
	if pl, ok := h.Provider.(provider.Puller); ok {
		return pl.Pull(ctx, name, progress)
	}
	return provider.Errorf(provider.ErrServer, nil,
		"%s is an OpenAI-compatible server: lathe pulls models only from Ollama; load %q on the server instead", h.URL, name)
}
