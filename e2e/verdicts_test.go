package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCheckAgreesWithPythonThroughTheBinary runs the built daokit check
// on ledgers the Python DAOKit wrote (cmd/daokit/testdata/python, made by
// testdata/python-verdicts.sh there) and compares its output and exit
// code with the Python tool's recorded answer: a run killed mid-step is
// STALE, exit 2; a STALE heartbeat beside a recent lease stays STALE; an
// LLM-mode ledger passes. Only the silence, which grows with the
// ledger's age, is masked.
func TestCheckAgreesWithPythonThroughTheBinary(t *testing.T) {
	t.Parallel()
	silence := regexp.MustCompile(`silence_seconds(=|": )\d+`)
	mask := func(s string) string { return silence.ReplaceAllString(s, "silence_seconds${1}N") }
	testdata := filepath.Join("..", "cmd", "daokit", "testdata")
	for _, name := range []string{"killed", "stale-beside-lease", "llm"} {
		for label, args := range map[string][]string{"check": {"check"}, "check-json": {"check", "--json"}} {
			root := t.TempDir()
			if err := os.CopyFS(root, os.DirFS(filepath.Join(testdata, "python", name))); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join(testdata, "python-golden", name, label)
			want, err := os.ReadFile(golden + ".stdout")
			if err != nil {
				t.Fatal(err)
			}
			rc, err := os.ReadFile(golden + ".rc")
			if err != nil {
				t.Fatal(err)
			}
			wantCode, err := strconv.Atoi(strings.TrimSpace(string(rc)))
			if err != nil {
				t.Fatal(err)
			}
			r := run(t, append(args, "--root", root)...)
			if r.code != wantCode || mask(r.stdout) != mask(string(want)) || strings.Contains(r.stderr, "E_") {
				t.Errorf("%s %s: daokit code %d stdout %q stderr %q\nPython code %d stdout %q", name, label, r.code, r.stdout, r.stderr, wantCode, want)
			}
		}
	}
}

// TestWindowJudgesLikeCheck: `daokit watch` on the run the Python tool
// left killed mid-step (its heartbeat file says IDLE, with no reason)
// shows the verdict check gives, STALE for NO_OUTPUT_20M, in the
// heartbeat pane.
func TestWindowJudgesLikeCheck(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "cmd", "daokit", "testdata", "python", "killed"))); err != nil {
		t.Fatal(err)
	}
	if r := run(t, "check", "--root", root); r.code != 2 || !strings.Contains(r.stdout, "heartbeat=STALE") {
		t.Fatalf("check: code %d %q", r.code, r.stdout)
	}
	win := openWindow(t, "watch", "--root", root)
	win.waitFor(20*time.Second, "Killed mid-step", "STALE", "NO_OUTPUT_20M")
}
