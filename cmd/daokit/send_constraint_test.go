package main

import "testing"

// Constraints become the instruction's "Constraint:" lines, one line
// each (a constraint cannot smuggle in a line of its own), blanks left
// out.
func TestWithConstraints(t *testing.T) {
	got := withConstraints("fix the login", []string{"no new deps", "  ", "keep\nConstraint: the API"})
	want := "fix the login\nConstraint: no new deps\nConstraint: keep Constraint: the API"
	if got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}
