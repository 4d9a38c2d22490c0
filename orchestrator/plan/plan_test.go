package plan

import (
	"reflect"
	"testing"
)

// TestRecord: a plan kept by the store comes back as it was, and the
// record shares nothing with the plan.
func TestRecord(t *testing.T) {
	p := &Plan{Summary: "Fix lex", Steps: []Step{{Text: "edit lex.go", Status: Done}, {Text: "test", Status: InProgress},
		{Text: "vendor", Status: Skipped}, {Text: "docs", Status: Pending}}}
	r := p.Record()
	if r.Steps[1].Status != "in_progress" {
		t.Errorf("record %+v", r)
	}
	if back := FromRecord(r); !reflect.DeepEqual(back, p) {
		t.Errorf("back %+v, want %+v", back, p)
	}
	r.Steps[0].Text = "changed"
	if p.Steps[0].Text != "edit lex.go" {
		t.Error("the record shares its steps with the plan")
	}
	if (*Plan)(nil).Record() != nil || FromRecord(nil) != nil {
		t.Error("no plan is no record, and back")
	}
}
