package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The Python DAOKit's own `bundle` made testdata/python-bundle/golden
// from testdata/python-bundle/source (gen.sh; README.md there says how).
// pythonBundleRoot is the folder it ran in: the summaries name it, and
// the test puts its own root in its place. Nothing else differs: a bundle
// summary holds no clock and no id.
const pythonBundleRoot = "/tmp/pyb/root"

// bundleAnchor is where the default bundle keeps its reports.
const bundleAnchor = ".artifacts/evidence-bundles/latest/docs/reports/final-run"

// bundleStep is one command of gen.sh: what it changes in the bundle
// first, then the command.
type bundleStep struct {
	label  string
	change func(t *testing.T, anchor string)
	args   []string
}

// bundleSteps is gen.sh, step for step.
var bundleSteps = []bundleStep{
	{label: "generate-json", args: []string{"--generate", "--json"}},
	{label: "generate", args: []string{"--generate"}},
	{label: "review-json", args: []string{"--review", "--json"}},
	{label: "review", args: []string{"--review"}},
	{label: "reverify-json", args: []string{"--reverify", "--json"}},
	{label: "reverify", args: []string{"--reverify"}},
	{label: "source-missing", args: []string{"--generate", "--source-dir", "docs/reports/nowhere"}},
	{label: "anchor-missing", args: []string{"--review", "--bundle-root", ".artifacts/nowhere"}},
	{label: "no-mode"},
	{label: "drift-json", change: func(t *testing.T, anchor string) {
		writeBundleFile(t, filepath.Join(anchor, "evidence/agent_runs/DKT-041_RUN/reports/DKT-041/report.md"), "# Report\nDrift\n")
	}, args: []string{"--reverify", "--json"}},
	{label: "drift", args: []string{"--reverify"}},
	{label: "generate-again", args: []string{"--generate"}},
	{label: "torn-review-json", change: func(t *testing.T, anchor string) {
		// The manifest cut mid-line, then a line that is no entry; the
		// index header cut; a log without its command markers; a
		// required file gone.
		manifest := filepath.Join(anchor, "evidence_manifest.sha256")
		data, err := os.ReadFile(manifest)
		if err != nil {
			t.Fatal(err)
		}
		writeBundleFile(t, manifest, string(data[:100])+"\nnot a manifest line\n")
		writeBundleFile(t, filepath.Join(anchor, "run_evidence_index.tsv"), "task_id\trun_id\tledger_sou")
		writeBundleFile(t, filepath.Join(anchor, "evidence/agent_runs/DKT-041_RUN/reports/DKT-041/verification.log"), "no markers here\n")
		removeBundleFile(t, filepath.Join(anchor, "RELEASE_SNAPSHOT.md"))
	}, args: []string{"--review", "--json"}},
	{label: "torn-json", args: []string{"--reverify", "--json"}},
	{label: "missing-json", change: func(t *testing.T, anchor string) {
		removeBundleFile(t, filepath.Join(anchor, "evidence_manifest.sha256"))
		removeBundleFile(t, filepath.Join(anchor, "run_evidence_index.tsv"))
	}, args: []string{"--reverify", "--json"}},
	{label: "missing-review-json", args: []string{"--review", "--json"}},
}

// TestBundleMatchesPython runs gen.sh's commands with daokit on the same
// source and compares every answer with the Python tool's: stdout byte
// for byte (the JSON, sorted and ASCII-escaped as Python prints it, and
// the key=value lines), stderr's E_ lines, exit codes, and the summary
// files. Only the usage error's wording is daokit's own (argparse prints
// its usage block); its exit code is compared.
func TestBundleMatchesPython(t *testing.T) {
	t.Parallel()
	root := bundleSourceRoot(t)
	anchor := filepath.Join(root, bundleAnchor)
	for _, step := range bundleSteps {
		if step.change != nil {
			step.change(t, anchor)
		}
		py := pythonGoldenIn(t, filepath.Join("testdata", "python-bundle", "golden"), step.label)
		r := runCLI(t, nil, append([]string{"bundle", "--root", root}, step.args...)...)
		fromPython := func(s string) string { return strings.ReplaceAll(s, pythonBundleRoot, root) }
		if r.code != py.code {
			t.Fatalf("%s: daokit exit %d (stderr %q), Python %d (stderr %q)", step.label, r.code, r.stderr, py.code, py.stderr)
		}
		if step.label == "no-mode" {
			if !strings.Contains(r.stderr, "--generate, --review, --reverify") || r.stdout != "" {
				t.Errorf("no-mode: stdout %q stderr %q", r.stdout, r.stderr)
			}
			continue
		}
		if want := fromPython(py.stdout); r.stdout != want {
			t.Errorf("%s: daokit printed\n%s\nPython printed\n%s", step.label, r.stdout, want)
		}
		if want := fromPython(py.stderr); r.stderr != want {
			t.Errorf("%s: daokit stderr %q, Python %q", step.label, r.stderr, want)
		}
		want, err := os.ReadFile(filepath.Join("testdata", "python-bundle", "golden", step.label+".summary.json"))
		if os.IsNotExist(err) {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(root, ".artifacts/evidence-bundles/latest/summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != fromPython(string(want)) {
			t.Errorf("%s: daokit's summary.json\n%s\nPython's\n%s", step.label, got, fromPython(string(want)))
		}
	}
}

// bundleSourceRoot copies testdata/python-bundle/source into a fresh
// root, named as the commands print it (links resolved, as Python does).
func bundleSourceRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(root, os.DirFS(filepath.Join("testdata", "python-bundle", "source"))); err != nil {
		t.Fatal(err)
	}
	return root
}

// pythonGoldenIn reads <dir>/<label>.{stdout,stderr,rc}.
func pythonGoldenIn(t *testing.T, dir, label string) pythonAnswer {
	t.Helper()
	rc, err := os.ReadFile(filepath.Join(dir, label+".rc"))
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
	code := 0
	for _, c := range strings.TrimSpace(string(rc)) {
		code = code*10 + int(c-'0')
	}
	return pythonAnswer{stdout: string(stdout), stderr: string(stderr), code: code}
}

func writeBundleFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func removeBundleFile(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}
