package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/daokit/daokit/i18n"
)

// entries lists what dir holds ("" when it does not exist).
func entries(t *testing.T, dir string) []string {
	t.Helper()
	list, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return []string{""}
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name())
	}
	return names
}

// TestNoSilentCreation: the commands that need a ledger refuse a root
// that is missing or holds none, in one line that says how to make one,
// and leave the folder as it was.
func TestNoSilentCreation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args  []string
		stdin string
		code  string
	}{
		{[]string{"send", "hello"}, "", "E_SEND_FAILED"},
		{[]string{"send", "hello", "--no-start"}, "", "E_SEND_FAILED"},
		{[]string{"send", "--cancel"}, "", "E_SEND_FAILED"},
		{[]string{"run", "--task-id", "T", "--goal", "g"}, "", "E_RUN_FAILED"},
		{[]string{"status"}, "", "E_STATUS_FAILED"},
		{[]string{"replay"}, "", "E_REPLAY_FAILED"},
		{[]string{"takeover"}, "", "E_TAKEOVER_FAILED"},
		{[]string{"handoff"}, "", "E_HANDOFF_FAILED"},
		{[]string{"controller"}, "", "E_CONTROLLER_FAILED"},
		{[]string{"watch"}, "", "E_UI_FAILED"},
		{[]string{"dashboard", "--port", "0"}, "", "E_DASHBOARD_FAILED"},
		{[]string{"ui"}, "n\n", "E_UI_FAILED"},
		{[]string{"ui"}, "", "E_UI_FAILED"},
		{[]string{}, "\n", "E_UI_FAILED"},
	} {
		for _, missing := range []bool{false, true} {
			root := t.TempDir()
			if missing {
				root = filepath.Join(root, "nonexistent")
			}
			r := runCLIWithInput(t, tc.stdin, append(tc.args, "--root", root)...)
			want := "is not a daokit ledger (no state/ folder); to make one: daokit init --root " + root
			if missing {
				want = root + " does not exist; to start a ledger there: daokit init --root " + root
			}
			if r.code != exitFailure || !strings.HasPrefix(r.stderr, tc.code+": ") || !strings.Contains(r.stderr, want) ||
				strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("%q (missing %v): code %d stderr %q", tc.args, missing, r.code, r.stderr)
			}
			if got := entries(t, root); !slices.Equal(got, []string{""}) && len(got) != 0 {
				t.Errorf("%q (missing %v) created %v", tc.args, missing, got)
			}
		}
	}
}

// TestCreatingALedgerMakesOnlyState: --init and a yes to the window's
// question create state/ and nothing of the Python skeleton.
func TestCreatingALedgerMakesOnlyState(t *testing.T) {
	t.Parallel()
	a := &app{ctx: context.Background(), loc: i18n.MustNew(i18n.English)}
	missing := filepath.Join(t.TempDir(), "new")
	if err := ledgerOrInit(a, missing, true); err != nil {
		t.Fatalf("--init on a missing root: %v", err)
	}
	if got := entries(t, missing); !slices.Equal(got, []string{"state"}) {
		t.Errorf("--init created %v, want only state", got)
	}
	for _, answer := range []string{"y\n", "yes\n", "是\n"} {
		dir := t.TempDir()
		var out strings.Builder
		a.io = stdio{in: strings.NewReader(answer), out: &out, err: &out}
		created, err := a.askToCreate(dir)
		if err != nil || !created || !strings.Contains(out.String(), "Create one here (only a state/ folder)? [y/N]") {
			t.Fatalf("answer %q: created %v, err %v, asked %q", answer, created, err, out.String())
		}
		if got := entries(t, dir); !slices.Equal(got, []string{"state"}) {
			t.Errorf("answer %q created %v, want only state", answer, got)
		}
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ledgerOrInit(a, file, true); err == nil || !strings.Contains(err.Error(), "is a file, not a folder") {
		t.Errorf("--init on a file: %v", err)
	}
}
