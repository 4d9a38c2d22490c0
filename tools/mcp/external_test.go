package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"lathe/orchestrator/provider"
	"lathe/tools"
)

func TestExternal(t *testing.T) {
	var sent json.RawMessage
	schema := `{"type":"object","properties":{"path":{"type":"string"},"count":{"type":["integer","null"]},
	  "ratio":{"type":"number"},"force":{"type":"boolean"},"labels":{"type":"array","items":{"type":"string"}},
	  "meta":{"type":"object"}},"required":["path"],"additionalProperties":false}`
	tool := external(externalSpec{
		Spec: provider.ToolSpec{Name: "s__t", Parameters: json.RawMessage(schema)},
		Kind: tools.KindExternal, Limit: 1024, Server: "s", Tool: "t",
		Run: func(_ context.Context, _ tools.Caller, args json.RawMessage) (tools.Result, error) {
			sent = args
			return tools.Result{Content: "ok"}, nil
		},
	})
	for _, tc := range []struct {
		name, args, sent string
		repairs          int
		note             string
	}{
		{"as given", `{"path":"a","meta":{"k":1}}`, `{"meta":{"k":1},"path":"a"}`, 0, ""},
		{"types repaired", `{"path":"a","count":"3","ratio":"0.5","force":"true","labels":"x\ny"}`,
			`{"count":3,"force":true,"labels":["x","y"],"path":"a","ratio":0.5}`, 4, "repaired"},
		{"a JSON string", `"{\"path\":\"a\"}"`, `{"path":"a"}`, 1, "repaired"},
		{"nulls left out, unknown dropped", `{"path":"a","count":null,"evil":1}`, `{"path":"a"}`, 1, "ignored unknown argument(s): evil"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			call, err := tool.Prepare(json.RawMessage(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			res, err := call.Run(t.Context(), tools.Caller{})
			if err != nil {
				t.Fatal(err)
			}
			if string(sent) != tc.sent || len(res.Repairs) != tc.repairs || !strings.Contains(res.Content, tc.note) {
				t.Errorf("sent %s, repairs %q, content %q; want %s, %d repairs, a note %q", sent, res.Repairs, res.Content, tc.sent, tc.repairs, tc.note)
			}
			if call.Subject() != "a" {
				t.Errorf("subject %q", call.Subject())
			}
		})
	}
	if _, err := tool.Prepare(json.RawMessage(`{"count":1}`)); err == nil || err.Error() != `missing required argument "path"` {
		t.Errorf("missing: %v", err)
	}
	if _, err := tool.Prepare(json.RawMessage(`[1]`)); err == nil {
		t.Error("an array was taken for arguments")
	}
	call, _ := tool.Prepare(json.RawMessage(`{"path":"a"}`))
	o, ok := tools.AsOrigin(call)
	if !ok || o.Preapproved() || tools.CallKind(call, tools.KindRead) != tools.KindExternal {
		t.Errorf("origin %v %v, kind %v", ok, o, tools.CallKind(call, tools.KindRead))
	}
	if server, name, full := o.Origin(); server != "s" || name != "t" || full != "s__t" {
		t.Errorf("origin = %s %s %s", server, name, full)
	}
}
