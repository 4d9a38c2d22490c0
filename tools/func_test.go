package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

type listArgs struct {
	Title string   `json:"title"`
	Items []string `json:"items"`
	Kind  string   `json:"kind"`
}

func listTool(got *listArgs) Tool {
	return Func("make_list", "Makes a list.", []Param{
		{Name: "title", Type: "string", Description: "the title", Required: true},
		{Name: "items", Type: "array", Description: "the items", Required: true},
		{Name: "kind", Type: "string", Description: "the kind", Enum: []string{"todo", "done"}},
	}, KindRead, func(a listArgs) (Call, error) {
		if a.Kind != "" {
			if err := OneOf("kind", a.Kind, []string{"todo", "done"}); err != nil {
				return nil, err
			}
		}
		return RunFunc(a.Title, func(context.Context, Caller) (Result, error) {
			*got = a
			return Result{Content: strings.Join(a.Items, "|")}, nil
		}), nil
	})
}

func TestFuncSchema(t *testing.T) {
	var got listArgs
	tool := listTool(&got)
	b, err := json.Marshal(tool.Spec())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"Name":"make_list"`,
		`"required":["title","items"]`,
		`"items":{"type":"array","items":{"type":"string"},"description":"the items"}`,
		`"kind":{"type":"string","description":"the kind","enum":["todo","done"]}`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("definition lacks %s:\n%s", want, b)
		}
	}
	if tool.Kind() != KindRead || tool.Name() != "make_list" {
		t.Errorf("Kind %v, Name %q", tool.Kind(), tool.Name())
	}
}

func TestFuncArguments(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		items   []string
		repair  string
		wantErr string
	}{
		{name: "array", raw: `{"title":"t","items":["a","b"]}`, items: []string{"a", "b"}},
		{name: "empty array", raw: `{"title":"t","items":[]}`, items: []string{}},
		{name: "JSON string", raw: `{"title":"t","items":"[\"a\",\"b\"]"}`, items: []string{"a", "b"},
			repair: `"items" sent as a JSON string`},
		{name: "lines", raw: `{"title":"t","items":"1. read a\n2) edit b\n\n- test\n* ship"}`,
			items: []string{"read a", "edit b", "test", "ship"}, repair: `"items" sent as a string, one item per line`},
		{name: "objects", raw: `{"title":"t","items":[{"step":1,"description":"read"},{"Text":"edit"},"test",{"what":"ship"},3]}`,
			items: []string{"read", "edit", "test", "ship", "3"}, repair: `"items" items sent as objects or numbers, their text used`},
		{name: "object without text", raw: `{"title":"t","items":[{"a":"x","b":"y"}]}`,
			wantErr: `argument "items" must be an array of strings, got array`},
		{name: "not a list", raw: `{"title":"t","items":5}`, wantErr: `argument "items" must be an array of strings, got number 5`},
		{name: "enum", raw: `{"title":"t","items":[],"kind":"later"}`, wantErr: `argument "kind" must be one of todo, done, got "later"`},
		{name: "missing", raw: `{"title":"t"}`, wantErr: `missing required argument "items"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got listArgs
			call, err := listTool(&got).Prepare(json.RawMessage(tt.raw))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			res, err := call.Run(t.Context(), Caller{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Items, tt.items) || call.Subject() != "t" {
				t.Errorf("items %q subject %q, want %q", got.Items, call.Subject(), tt.items)
			}
			if tt.repair == "" && len(res.Repairs) > 0 || tt.repair != "" && (len(res.Repairs) != 1 || res.Repairs[0] != tt.repair) {
				t.Errorf("repairs %q, want %q", res.Repairs, tt.repair)
			}
			if tt.repair != "" && !strings.Contains(res.Content, "your arguments were repaired") {
				t.Errorf("the model is not told of the repair: %q", res.Content)
			}
		})
	}
}
