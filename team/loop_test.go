package team

import (
	"strings"
	"testing"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/i18n"
)

// A role's loop reads as daokit.toml's: its lanes, the coder and
// reviewer that name them, the judge (reviewer_approved by default) and
// max_iterations (3 by default).
func TestLoopRole(t *testing.T) {
	w, err := Parse([]byte(`
[roles.backend]
workflow = "loop"
coder = "impl"
reviewer = "review"
judge = "command"
judge_command = ["go", "test", "./..."]
[roles.backend.lanes.impl]
worker = ["claude", "-p"]
kind = "claude"
[roles.backend.lanes.review]
[roles.qa]
workflow = "single"
`), "workflow.toml", "/p")
	if err != nil {
		t.Fatal(err)
	}
	lp := w.Roles["backend"].Loop
	if lp == nil || lp.Coder != "impl" || lp.Reviewer != "review" || lp.Judge != config.JudgeCommand ||
		strings.Join(lp.JudgeCommand, " ") != "go test ./..." || lp.MaxIterations != config.DefaultMaxIterations {
		t.Fatalf("loop %+v", lp)
	}
	if l := lp.Lanes["impl"]; l.Kind != "claude" || len(l.Worker) != 2 || len(lp.Lanes["review"].Worker) != 0 {
		t.Fatalf("lanes %+v", lp.Lanes)
	}
	if w.Roles["qa"].Loop != nil {
		t.Fatal("a single role has no loop")
	}
}

// Every problem of every role's workflow is reported, each once, with a
// message in both languages: an unknown workflow, missing and unknown
// lanes, an unknown judge, a command judge without its command, an
// out-of-range max_iterations, a lane of an unknown kind, and a loop's
// setting on a role without a loop.
func TestLoopProblems(t *testing.T) {
	_, err := Parse([]byte(`
[roles.a]
workflow = "pipeline"
[roles.b]
workflow = "loop"
reviewer = "nope"
judge = "command"
max_iterations = 0
[roles.b.lanes.impl]
kind = "gpt"
[roles.c]
workflow = "loop"
coder = "x"
reviewer = "x"
judge = "oracle"
[roles.c.lanes.x]
[roles.d]
coder = "impl"
`), "workflow.toml", "/p")
	es, ok := err.(Errors)
	if !ok {
		t.Fatalf("%v", err)
	}
	want := map[string]Code{
		"roles.a.workflow": CodeFlow, "roles.b.coder": CodeLane, "roles.b.reviewer": CodeLane, "roles.b.judge_command": CodeJudge,
		"roles.b.max_iterations": CodeIterations, "roles.b.lanes.impl.kind": CodeKind, "roles.c.judge": CodeJudge, "roles.d.coder": CodeLoopOnly,
	}
	got := map[string]Code{}
	for _, e := range es {
		if _, dup := got[e.Key]; dup {
			t.Errorf("%s reported twice", e.Key)
		}
		got[e.Key] = e.Code
	}
	for k, c := range want {
		if got[k] != c {
			t.Errorf("%s: %q, want %q (all: %v)", k, got[k], c, got)
		}
	}
	if len(es) != len(want) {
		t.Errorf("%d problems, want %d: %v", len(es), len(want), got)
	}
	en, zh := es.Localize(i18n.MustNew(i18n.English)), es.Localize(i18n.MustNew("zh-CN"))
	for _, s := range []string{`roles.a.workflow = "pipeline": unknown workflow (a role's workflow is one of: single, loop)`,
		`roles.b.coder = -: a loop needs a lane of the role here`, `(its lanes: impl)`, `roles.d.coder is a setting of a loop`} {
		if !strings.Contains(en, s) {
			t.Errorf("English lacks %q:\n%s", s, en)
		}
	}
	for _, s := range []string{"未知的工作流", "循环在这里需要该角色的一个 lane", "是循环的设置", "max_iterations 必须是"} {
		if !strings.Contains(zh, s) {
			t.Errorf("Chinese lacks %q:\n%s", s, zh)
		}
	}
}
