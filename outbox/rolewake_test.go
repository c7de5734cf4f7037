package outbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"
)

// A change pokes the folders of the roles it may concern, and only
// those; a close or a decision pokes every role.
func TestApplyPokesTheRolesAChangeConcerns(t *testing.T) {
	s, err := OpenSQLite(newDB(t), Options{WakeInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	roles := []string{"r0", "r1", "r2", "qa"}
	for _, r := range roles {
		if _, err := s.roleWaiter(r); err != nil {
			t.Fatal(err)
		}
	}
	dir := wakeDirOf(s.path)
	poked := func() []string {
		var out []string
		for _, r := range roles {
			p := filepath.Join(dir, r, "poke")
			if _, err := os.Stat(p); err == nil {
				out = append(out, r)
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			} else if !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
		}
		sort.Strings(out)
		return out
	}
	poked()
	a := mustApply(t, s, Change{Actor: "ann", Ops: []Op{{Kind: OpOpen, Title: "a", Labels: []string{"to:r0"}}}}).Issues[0]
	b := mustApply(t, s, Change{Actor: "ann", Ops: []Op{{Kind: OpOpen, Title: "b", Body: "for @r1."}}}).Issues[0]
	if got := poked(); !slices.Equal(got, []string{"r0", "r1"}) {
		t.Fatalf("opening a to:r0 issue and one mentioning @r1 poked %v", got)
	}
	for _, c := range []struct {
		name string
		ch   Change
		want []string
	}{
		{"a comment on a to:r0 issue", Change{Actor: "ann", Ops: []Op{{Kind: OpComment, Issue: a, Body: "hi"}}}, []string{"r0"}},
		{"a comment mentioning @qa (and an address)", Change{Actor: "ann", Ops: []Op{{Kind: OpComment, Issue: a, Body: "@qa see x@r2example"}}}, []string{"qa", "r0"}},
		{"a comment on an issue whose body mentions @r1", Change{Actor: "ann", Ops: []Op{{Kind: OpComment, Issue: b, Body: "hi"}}}, []string{"r1"}},
		{"an assignment to r2's Lead", Change{Actor: "ann", Ops: []Op{{Kind: OpAssign, Issue: b, Assignee: "lead:r2"}}}, []string{"r1", "r2"}},
		{"a label on an issue r2 holds", Change{Actor: "lead:r2", Ops: []Op{{Kind: OpLabel, Issue: b, Labels: []string{"state:queued"}}}}, []string{"r1", "r2"}},
		{"removing to:r0", Change{Actor: "ann", Ops: []Op{{Kind: OpUnlabel, Issue: a, Labels: []string{"to:r0"}}}}, []string{"r0"}},
		{"a cursor moved, no event", Change{Reader: "lead:r1", UpTo: 3}, nil},
		{"a decision stamped", Change{Actor: "ann", Ops: []Op{{Kind: OpLabel, Issue: a, Labels: []string{"decision:accepted"}}}}, roles},
		{"a close", Change{Actor: "ann", Ops: []Op{{Kind: OpClose, Issue: b}}}, roles},
	} {
		mustApply(t, s, c.ch)
		want := slices.Sorted(slices.Values(c.want))
		if got := poked(); !slices.Equal(got, want) {
			t.Errorf("%s poked %v, want %v", c.name, got, want)
		}
	}
}

// WaitRole returns at once for what came before it watched, then when a
// change concerning its role commits, long before its wake interval.
func TestWaitRoleWakesForItsRole(t *testing.T) {
	path := newDB(t)
	lead, err := OpenSQLite(path, Options{WakeInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer lead.Close()
	writer, err := OpenSQLite(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := lead.WaitRole(ctx, 0, "r0"); err != nil {
		t.Fatalf("first WaitRole: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- lead.WaitRole(ctx, 0, "r0") }()
	mustApply(t, writer, Change{Actor: "ann", Ops: []Op{{Kind: OpOpen, Title: "a", Labels: []string{"to:r0"}}}})
	if err := <-done; err != nil {
		t.Fatalf("WaitRole after a to:r0 issue: %v", err)
	}
	head, err := lead.Head(ctx)
	if err != nil || head == 0 {
		t.Fatalf("woken before the commit is visible: head %d, %v", head, err)
	}
}
