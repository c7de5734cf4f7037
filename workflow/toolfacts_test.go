package workflow

import (
	"slices"
	"testing"
)

func collect(steps ...func(c *EventCollector)) Facts {
	var c EventCollector
	c.reset(AgentInfo{StepID: "I1-coder", Role: RoleCoder, Iteration: 1})
	for _, s := range steps {
		s(&c)
	}
	f, _ := c.snapshot()
	return f
}

func use(name, detail, id string) func(*EventCollector) {
	return func(c *EventCollector) { c.toolUse(ToolUse{Name: name, Detail: detail, ID: id}) }
}

func result(r ToolResult) func(*EventCollector) {
	return func(c *EventCollector) { c.toolResult(r) }
}

// Tests are failing or passing by what the command's result says, not by
// the command having started: the output's FAIL lines, or the exit code
// when the output names nothing.
func TestFactsFromTestResults(t *testing.T) {
	started := collect(use("Bash", "go test ./...", "t1"))
	if started.TestsRun || started.Commands != 0 || RenderFacts(started) != "no changes yet" {
		t.Fatalf("a test command that has not ended: %+v (%q)", started, RenderFacts(started))
	}
	failing := collect(use("Bash", "go test -count=1 ./...", "t1"), result(ToolResult{ID: "t1", Name: "Bash", Failed: true, Code: "exit 1",
		Output: "Exit code 1\n--- FAIL: TestBroken (0.00s)\n    add_test.go:13: Add(2, 2) = 4, want 5\nFAIL\nFAIL\texample.com/m\t0.003s\nFAIL"}))
	if !slices.Equal(failing.Failing, []string{"TestBroken", "example.com/m"}) || failing.Commands != 1 {
		t.Fatalf("failing run: %+v", failing)
	}
	if got := RenderFacts(failing); got != "tests failing in TestBroken, example.com/m; ran 1 command" {
		t.Fatalf("rendered %q", got)
	}
	bare := collect(use("shell", "/bin/bash -lc 'npm test'", "i1"), result(ToolResult{ID: "i1", Name: "shell", Failed: true, Code: "exit 2", Output: "boom"}))
	if !slices.Equal(bare.Failing, []string{"npm test"}) {
		t.Fatalf("a failed test command without test lines: %+v", bare)
	}
	fixed := collect(use("shell", "npm test", "i1"), result(ToolResult{ID: "i1", Name: "shell", Failed: true, Output: "boom"}),
		use("shell", "npm test", "i2"), result(ToolResult{ID: "i2", Name: "shell"}))
	if len(fixed.Failing) != 0 || !fixed.TestsRun || RenderFacts(fixed) != "tests passing; ran 2 commands" {
		t.Fatalf("the same command passing later: %+v %q", fixed, RenderFacts(fixed))
	}
	other := collect(use("Bash", "cat test.txt", "t1"), result(ToolResult{ID: "t1", Name: "Bash", Failed: true, Output: "no such file"}))
	if other.TestsRun || len(other.Failing) != 0 {
		t.Fatalf("a failed command that runs no tests: %+v", other)
	}
}

// Edits count when they applied; denied calls are listed and count as
// nothing else; calls of a worker without results count at once.
func TestFactsEditsAndDenials(t *testing.T) {
	f := collect(
		use("Edit", "a.go", "t1"), result(ToolResult{ID: "t1", Name: "Edit"}),
		use("Edit", "b.go", "t2"), result(ToolResult{ID: "t2", Name: "Edit", Failed: true, Detail: "String to replace not found"}),
		use("Write", "c.go", "t3"), result(ToolResult{ID: "t3", Name: "Write", Failed: true, Denied: true}),
		use("Bash", "go build ./...", "t4"), result(ToolResult{ID: "t4", Name: "Bash", Failed: true, Denied: true}),
		use("Edit", "d.go", "t5"), // no result yet
		use("file_change", "e.go", "i1"), use("file_change", "f.go", "i1"), result(ToolResult{ID: "i1", Name: "file_change"}),
		use("edit", "g.go", ""), // the worker protocol without ids
		result(ToolResult{ID: "t9", Name: "Edit", Detail: "The file h.go has been updated."}), // its use was not seen
	)
	if !slices.Equal(f.Edited, []string{"a.go", "e.go", "f.go", "g.go"}) {
		t.Fatalf("edited %v", f.Edited)
	}
	if !slices.Equal(f.Denied, []string{"Write c.go", "Bash go build ./..."}) || f.Commands != 0 || f.ToolUses != 8 {
		t.Fatalf("facts %+v", f)
	}
	if got := RenderFacts(f); got != "edited 4 files (a.go, e.go, f.go, …); denied 2 actions (Write c.go, Bash go build ./...)" {
		t.Fatalf("rendered %q", got)
	}
}
