package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBundleWorkflowWithTheBinary is the Python DAOKit's
// tests/cli/test_bundle_workflow.py with the real daokit binary, on the
// source its golden data was made from: two generates print the same
// JSON, which is the Python tool's answer; review and reverify pass; a
// report changed after bundling fails reverify with exit 2 and names it.
// Options are abbreviated as argparse allows.
func TestBundleWorkflowWithTheBinary(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testdata := filepath.Join("..", "cmd", "daokit", "testdata", "python-bundle")
	if err := os.CopyFS(root, os.DirFS(filepath.Join(testdata, "source"))); err != nil {
		t.Fatal(err)
	}
	bundleRoot := ".artifacts/evidence-bundles/run1"
	summary := filepath.Join(root, bundleRoot, "generate-summary.json")
	generate := []string{"bundle", "--gen", "--root", root, "--bundle-root", bundleRoot, "--summary", summary, "--json"}
	first, second := run(t, generate...), run(t, generate...)
	if first.code != 0 || first.stdout != second.stdout {
		t.Fatalf("generate: exit %d %q; twice: %q then %q", first.code, first.stderr, first.stdout, second.stdout)
	}
	// Python's answer on the default bundle root, with this root and
	// bundle root in place of the ones it ran with.
	py, err := os.ReadFile(filepath.Join(testdata, "golden", "generate-json.stdout"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(string(py), "/tmp/pyb/root", root)
	want = strings.ReplaceAll(want, ".artifacts/evidence-bundles/latest", bundleRoot)
	if first.stdout != want {
		t.Errorf("daokit printed\n%s\nPython printed\n%s", first.stdout, want)
	}
	if data, err := os.ReadFile(summary); err != nil || string(data) != first.stdout {
		t.Errorf("summary file differs from the output: %v\n%s", err, data)
	}

	var review, reverify map[string]any
	r := run(t, "bundle", "--review", "--root", root, "--bundle-root", bundleRoot, "--js")
	decodeBundleJSON(t, r, &review)
	if r.code != 0 || review["status"] != "passed" || review["manifest_entries"] != 4.0 {
		t.Fatalf("review: %d %v %q", r.code, review, r.stderr)
	}
	r = run(t, "bundle", "--reverify", "--root", root, "--bundle-root", bundleRoot)
	if r.code != 0 || !strings.HasSuffix(r.stdout, "manifest_entries_checked=4 verification_logs_checked=1 missing_required_paths=0\n") {
		t.Fatalf("reverify: %d %q %q", r.code, r.stdout, r.stderr)
	}

	report := filepath.Join(root, bundleRoot, "docs/reports/final-run/evidence/agent_runs/DKT-041_RUN/reports/DKT-041/report.md")
	if err := os.WriteFile(report, []byte("# Report\nDrift\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, "bundle", "--reverify", "--root", root, "--bundle-root", bundleRoot, "--json")
	decodeBundleJSON(t, r, &reverify)
	mismatches, _ := reverify["manifest_mismatches"].([]any)
	if r.code != 2 || reverify["status"] != "failed" || len(mismatches) != 1 ||
		!strings.HasSuffix(mismatches[0].(map[string]any)["path"].(string), "DKT-041/report.md") {
		t.Fatalf("reverify after drift: %d %v %q", r.code, reverify, r.stderr)
	}
}

func decodeBundleJSON(t *testing.T, r result, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		t.Fatalf("not JSON: %v\n%s\n%s", err, r.stdout, r.stderr)
	}
}
