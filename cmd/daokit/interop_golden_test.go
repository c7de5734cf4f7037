package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The ledgers under testdata/python were written by the Python DAOKit
// itself (daokit-cli, Python 3.11, generated once and committed as
// data): done is `init` + `run`; interrupted is `init` + `run
// --simulate-interruption --lease-ttl 315360000` (a ten-year lease, so
// that the tests do not depend on when they run); taken-over is
// interrupted + `takeover --successor-thread-id thread-succ
// --successor-pid 4242 --lease-ttl 315360000`; handed-off is taken-over +
// `handoff --create` + `handoff --apply`. Only state/ is kept. Nothing in
// them was edited.
//
// testdata/python-golden/<ledger>/<command>.{stdout,stderr,rc} is what
// the Python tool printed and returned for the same command on the same
// file (on a scratch copy for takeover and handoff --apply). The files
// hold the generating root's absolute path, /tmp/pyi/roots/<ledger> (and
// /tmp/pyi/roots/scratch for the mutating commands): done's events name
// artifact files under it, which both tools print as stored, and
// handoff --apply prints package_path under the root it ran in, which the
// test replaces with the test's root before comparing.

// pythonGenRoot is the folder the Python ledgers were generated in.
const pythonGenRoot = "/tmp/pyi/roots/"

// pythonAnswer is the Python tool's recorded answer to one command.
type pythonAnswer struct {
	stdout, stderr string
	code           int
}

// pythonGolden reads testdata/python-golden/<ledger>/<label>.*.
func pythonGolden(t *testing.T, ledgerName, label string) pythonAnswer {
	t.Helper()
	dir := filepath.Join("testdata", "python-golden", ledgerName)
	rc, err := os.ReadFile(filepath.Join(dir, label+".rc"))
	if err != nil {
		t.Fatal(err)
	}
	code, err := strconv.Atoi(strings.TrimSpace(string(rc)))
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := os.ReadFile(filepath.Join(dir, label+".stdout"))
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := os.ReadFile(filepath.Join(dir, label+".stderr"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return pythonAnswer{stdout: string(stdout), stderr: string(stderr), code: code}
}

// maskedJSON decodes a command's JSON object output with the clock's
// fields (takeover_at, loaded_at) blanked and the root replaced.
func maskedJSON(t *testing.T, out, root string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	for _, k := range []string{"takeover_at", "loaded_at"} {
		if _, ok := v[k]; ok {
			v[k] = "<now>"
		}
	}
	if p, ok := v["package_path"].(string); ok {
		v["package_path"] = strings.Replace(p, root, "<root>", 1)
	}
	return v
}

// withoutGenRoot replaces the generating root of a mutating command's
// scratch copy with <root>.
func withoutGenRoot(s string) string {
	return strings.ReplaceAll(s, pythonGenRoot+"scratch", "<root>")
}

// TestInteropMatchesPythonAnswers runs daokit's status, check, replay,
// takeover and handoff --apply on every Python-written ledger and
// compares each answer with the Python tool's on the same file. Where
// daokit answers otherwise on purpose, the case says which row of
// docs/architecture.* explains it, and pins daokit's answer.
func TestInteropMatchesPythonAnswers(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"done", "interrupted", "taken-over", "handed-off"} {
		for _, tc := range []struct {
			label string
			args  []string
		}{
			{"status", []string{"status"}},
			{"check", []string{"check"}},
			{"check-json", []string{"check", "--json"}},
			{"replay", []string{"replay"}},
			{"replay-json", []string{"replay", "--json"}},
			{"replay-snapshots", []string{"replay", "--source", "snapshots"}},
			{"takeover", []string{"takeover", "--successor-thread-id", "thread-succ", "--successor-pid", "4242"}},
			{"handoff-apply", []string{"handoff", "--apply"}},
		} {
			t.Run(name+"/"+tc.label, func(t *testing.T) {
				t.Parallel()
				py := pythonGolden(t, name, tc.label)
				root := pythonRoot(t, name)
				r := runCLI(t, nil, append(tc.args, "--root", root)...)
				switch tc.label {
				case "status":
					// docs/architecture, "status prints one line": the
					// same first line, then details for people.
					first, _, _ := strings.Cut(r.stdout, "\n")
					if r.code != py.code || first+"\n" != py.stdout {
						t.Errorf("daokit: code %d first line %q; Python: code %d %q", r.code, first, py.code, py.stdout)
					}
				case "check", "check-json":
					checkAgainstPython(t, name, root, r, py)
				case "takeover", "handoff-apply":
					if r.code != py.code {
						t.Fatalf("daokit: code %d stderr %q; Python: code %d stderr %q", r.code, r.stderr, py.code, py.stderr)
					}
					if py.code != 0 {
						if got, want := strings.ReplaceAll(r.stderr, root, "<root>"), withoutGenRoot(py.stderr); got != want {
							t.Errorf("daokit stderr %q, Python %q", got, want)
						}
						return
					}
					got, want := maskedJSON(t, r.stdout, root), maskedJSON(t, withoutGenRoot(py.stdout), "<root>")
					if !reflect.DeepEqual(got, want) {
						t.Errorf("daokit printed %v\nPython printed %v", got, want)
					}
				default:
					if r.code != py.code || r.stdout != py.stdout {
						t.Errorf("daokit: code %d stdout %q stderr %q\nPython: code %d stdout %q", r.code, r.stdout, r.stderr, py.code, py.stdout)
					}
				}
			})
		}
	}
}

// checkAgainstPython compares check on a Python ledger. On a completed
// run both say PASS/IDLE. On an interrupted run (PLANNING with the
// interrupted or the successor's lease ACTIVE) Python says IDLE, exit 0;
// daokit judges the lease's silence (docs/architecture, "check calls an
// interrupted run … idle"): ACTIVE while the last beat is recent, STALE,
// exit 2, after stale_after (1200 s) of silence.
func checkAgainstPython(t *testing.T, name, root string, r cliResult, py pythonAnswer) {
	t.Helper()
	if name == "done" {
		if r.code != py.code || r.stdout != py.stdout {
			t.Errorf("daokit: code %d %q %q\nPython: code %d %q", r.code, r.stdout, r.stderr, py.code, py.stdout)
		}
		return
	}
	if py.code != 0 || !strings.Contains(py.stdout, "IDLE") {
		t.Fatalf("the Python golden changed: code %d %q", py.code, py.stdout)
	}
	lease := readJSON(t, root, "process_leases.json")["leases"].([]any)[0].(map[string]any)
	beat, err := time.Parse(time.RFC3339Nano, lease["last_heartbeat_at"].(string))
	if err != nil {
		t.Fatal(err)
	}
	silence := time.Since(beat)
	switch {
	case silence > 1200*time.Second+5*time.Second:
		if r.code != exitStale || !strings.Contains(r.stdout, "STALE") {
			t.Errorf("silent %v: daokit code %d %q %q", silence, r.code, r.stdout, r.stderr)
		}
	case silence < 900*time.Second-5*time.Second:
		if r.code != 0 || !strings.Contains(r.stdout, "ACTIVE") {
			t.Errorf("silent %v: daokit code %d %q %q", silence, r.code, r.stdout, r.stderr)
		}
	default: // near a threshold: WARNING or either side of it
		if r.code == exitFailure || !strings.Contains(r.stdout, "PLANNING") {
			t.Errorf("silent %v: daokit code %d %q %q", silence, r.code, r.stdout, r.stderr)
		}
	}
}
