package orchestrator

import (
	"context"
	"errors"
	"lathe/orchestrator/plan"
	"lathe/orchestrator/session"
	"slices"
	"sort"
	"strings"
	"sync"
)

// memStore is an in-memory Recorder and Catalog for the agent's tests; the SQLite
// one is tested in package store and end to end.
type memStore struct {
	mu          sync.Mutex
	sessions    map[string]*session.Record
	messages    map[string]map[int]session.Message
	compactions map[string][]session.Compaction
	modes       map[string]map[int]session.ModeRecord
	runs        []memRun
	fail        error           // every write returns it when set
	failTools   error           // saving a tool result returns it when set
	held        map[string]bool // sessions this process claimed
	elsewhere   map[string]bool // sessions another process uses
}

type memRun struct {
	session.RunStart
	end *session.RunEnd
}

func newMemStore() *memStore {
	return &memStore{sessions: map[string]*session.Record{}, messages: map[string]map[int]session.Message{},
		compactions: map[string][]session.Compaction{}, modes: map[string]map[int]session.ModeRecord{},
		held: map[string]bool{}, elsewhere: map[string]bool{}}
}

func (m *memStore) Claim(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.elsewhere[id] {
		return &session.InUseError{ID: id, Holder: session.Holder{PID: 4242}}
	}
	m.held[id] = true
	return nil
}

func (m *memStore) Release(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.held, id)
	return nil
}

func (m *memStore) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.sessions[id]; !ok {
		return session.ErrNotFound
	}
	delete(m.sessions, id)
	delete(m.messages, id)
	delete(m.compactions, id)
	delete(m.modes, id)
	delete(m.held, id)
	return nil
}

func (m *memStore) CreateSession(_ context.Context, s session.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	m.sessions[s.ID] = &s
	m.messages[s.ID] = map[int]session.Message{}
	m.held[s.ID] = true
	return nil
}

func (m *memStore) SetTitle(_ context.Context, id, title string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sessions[id].Title = title
	return nil
}

func (m *memStore) SaveMessage(_ context.Context, id string, msg session.Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	if m.failTools != nil && msg.Message.Role == "tool" {
		return m.failTools
	}
	m.messages[id][msg.Seq] = msg
	return nil
}

func (m *memStore) SaveCompaction(_ context.Context, id string, c session.Compaction) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.compactions[id] = append(m.compactions[id], c)
	return nil
}

func (m *memStore) SaveMode(_ context.Context, id string, rec session.ModeRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	if _, ok := m.sessions[id]; !ok {
		return session.ErrNotFound
	}
	if m.modes[id] == nil {
		m.modes[id] = map[int]session.ModeRecord{}
	}
	rec.Plan = plan.FromRecord(rec.Plan).Record() // a copy, as a database would keep it
	m.modes[id][rec.Seq] = rec
	return nil
}

func (m *memStore) StartRun(_ context.Context, r session.RunStart) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.runs = append(m.runs, memRun{RunStart: r})
	return int64(len(m.runs)), nil
}

func (m *memStore) FinishRun(_ context.Context, id int64, end session.RunEnd) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.runs[id-1].end = &end
	return nil
}

func (m *memStore) Load(_ context.Context, id string) (session.Saved, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.sessions[id]
	if !ok {
		return session.Saved{}, session.ErrNotFound
	}
	saved := session.Saved{Record: *rec}
	for _, msg := range m.messages[id] {
		saved.Messages = append(saved.Messages, msg)
	}
	sort.Slice(saved.Messages, func(i, j int) bool { return saved.Messages[i].Seq < saved.Messages[j].Seq })
	if cs := m.compactions[id]; len(cs) > 0 {
		saved.Compaction = &cs[len(cs)-1]
	}
	for _, rec := range m.modes[id] {
		rec.Plan = plan.FromRecord(rec.Plan).Record()
		saved.Modes = append(saved.Modes, rec)
	}
	slices.SortFunc(saved.Modes, func(a, b session.ModeRecord) int { return a.Seq - b.Seq })
	return saved, nil
}

func (m *memStore) Find(_ context.Context, prefix string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var found []string
	for id := range m.sessions {
		if strings.HasPrefix(id, prefix) {
			found = append(found, id)
		}
	}
	switch len(found) {
	case 0:
		return "", session.ErrNotFound
	case 1:
		return found[0], nil
	}
	return "", session.ErrAmbiguousID
}

func (m *memStore) Latest(context.Context, string) (string, error) {
	return "", errors.New("not used")
}

func (m *memStore) List(context.Context, string) ([]session.Summary, error) {
	return nil, errors.New("not used")
}

func (m *memStore) Prompts(context.Context, string, int) ([]string, error) {
	return nil, errors.New("not used")
}

// history returns a session's stored messages in seq order.
func (m *memStore) history(id string) []session.Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []session.Message
	for _, msg := range m.messages[id] {
		out = append(out, msg)
	}
	slices.SortFunc(out, func(a, b session.Message) int { return a.Seq - b.Seq })
	return out
}
