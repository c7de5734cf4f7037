package workflow

import (
	"slices"
	"strings"
)

// toolKind is what a tool call means for a step's facts.
type toolKind uint8

const (
	toolOther   toolKind = iota
	toolEdit             // changes a file
	toolCommand          // runs a command
)

// kindOf classifies a tool by its name, as Claude Code, Codex and the
// worker protocol name them.
func kindOf(name string) toolKind {
	switch strings.ToLower(name) {
	case "edit", "write", "multiedit", "file_change", "apply_patch", "str_replace", "create", "notebookedit":
		return toolEdit
	case "bash", "command_execution", "shell", "exec", "run", "local_shell":
		return toolCommand
	}
	return toolOther
}

// toolUse adds a tool call. An edit or a command with a call id counts
// only when its result says it succeeded (see toolResult): an Edit that
// did not apply or was denied changed nothing, and a test command is
// passing or failing by its exit and output, not by having started. A
// call without an id (a worker that reports no results) counts at once.
func (c *EventCollector) toolUse(t ToolUse) {
	c.facts.ToolUses++
	c.since++
	c.remember(t.Name + " " + t.Detail)
	if kindOf(t.Name) == toolOther {
		return
	}
	if t.ID == "" {
		c.applied(t, nil)
		return
	}
	if c.pending == nil {
		c.pending = map[string][]ToolUse{}
	}
	c.pending[t.ID] = append(c.pending[t.ID], t)
}

// toolResult ends the calls of r.ID. A result whose call was not seen
// (shed under a flood of output, or a worker that reports results only)
// stands for its own call, except as an edit: its detail is the tool's
// answer, not the file.
func (c *EventCollector) toolResult(r ToolResult) {
	uses := c.pending[r.ID]
	delete(c.pending, r.ID)
	if len(uses) == 0 {
		if k := kindOf(r.Name); k == toolOther || (k == toolEdit && !r.Denied) {
			return
		}
		uses = []ToolUse{{Name: r.Name, Detail: r.Detail, ID: r.ID}}
	}
	for _, u := range uses {
		switch {
		case r.Denied:
			c.addDenied(strings.TrimSpace(u.Name + " " + u.Detail))
		case kindOf(u.Name) == toolEdit && r.Failed:
			// An edit that did not apply is no edit.
		default:
			c.applied(u, &r)
		}
	}
	if r.Denied || r.Failed {
		c.remember(strings.TrimSpace(r.Name + " " + r.Code + " " + r.Detail))
	}
}

// applied counts a call that ran: an edit's file, a command, and a test
// command's outcome from its result (nil: the worker reports none).
func (c *EventCollector) applied(t ToolUse, r *ToolResult) {
	switch kindOf(t.Name) {
	case toolEdit:
		if t.Detail != "" && !slices.Contains(c.facts.Edited, t.Detail) && len(c.facts.Edited) < maxEdited {
			c.facts.Edited = append(c.facts.Edited, t.Detail)
		}
	case toolCommand:
		c.facts.Commands++
		if r == nil {
			if testCommand(t.Detail) {
				c.facts.TestsRun = true
			}
			return
		}
		c.commandResult(t.Detail, r)
	}
}

// commandResult reads a finished command's outcome: the test lines of
// its output count one by one (see testLine); a test command that failed
// without naming what failed is failing under its own name, until the
// same command passes.
func (c *EventCollector) commandResult(command string, r *ToolResult) {
	out := r.Output
	if out == "" {
		out = r.Detail
	}
	tests, failures := false, false
	for line := range strings.Lines(out) {
		test, failed := c.testLine(strings.TrimSpace(line))
		tests, failures = tests || test, failures || failed
	}
	if !tests && !testCommand(command) {
		return
	}
	c.facts.TestsRun = true
	name := clipRunes(unwrapShell(command), 60)
	switch {
	case r.Failed && !failures:
		c.addFailing(name)
	case !r.Failed:
		c.facts.Failing = slices.DeleteFunc(c.facts.Failing, func(s string) bool { return s == name })
	}
}

// testCommand reports whether a command runs tests: "go test ./...",
// "npm test", "make test-unit", "pytest -q", "cargo test".
func testCommand(command string) bool {
	for _, f := range strings.FieldsFunc(command, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\'' || r == '"' || r == ';' || r == '&' || r == '|'
	}) {
		switch {
		case f == "test", strings.HasPrefix(f, "test:"), strings.HasPrefix(f, "test-"):
			return true
		case f == "pytest", f == "jest", f == "vitest", f == "rspec", f == "ctest", f == "tox":
			return true
		}
	}
	return false
}

func (c *EventCollector) addDenied(s string) {
	if !slices.Contains(c.facts.Denied, s) && len(c.facts.Denied) < maxEdited {
		c.facts.Denied = append(c.facts.Denied, s)
	}
}

// unwrapShell drops the login shell Codex wraps each command in
// ("/bin/bash -lc 'go test ./...'"), so that a failing command is named
// as the agent wrote it.
func unwrapShell(command string) string {
	command = strings.TrimSpace(command)
	for _, shell := range []string{"/bin/bash -lc ", "bash -lc ", "/bin/sh -c ", "sh -c "} {
		if rest, ok := strings.CutPrefix(command, shell); ok {
			rest = strings.TrimSpace(rest)
			if len(rest) >= 2 && (rest[0] == '\'' || rest[0] == '"') && rest[len(rest)-1] == rest[0] {
				rest = rest[1 : len(rest)-1]
			}
			return rest
		}
	}
	return command
}
