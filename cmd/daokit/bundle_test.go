package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bundleJSON runs a bundle mode with --json on root and decodes it.
func bundleJSON(t *testing.T, root string, args ...string) (map[string]any, cliResult) {
	t.Helper()
	r := runCLI(t, nil, append([]string{"bundle", "--root", root, "--json"}, args...)...)
	var v map[string]any
	if r.stdout != "" {
		if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
			t.Fatalf("%v: not JSON: %v\n%s", args, err, r.stdout)
		}
	}
	return v, r
}

// oneError checks a failure: exit 1 and one "<code>: …" line naming want.
func oneError(t *testing.T, r cliResult, code, want string) {
	t.Helper()
	if r.code != exitFailure || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 ||
		!strings.HasPrefix(r.stderr, code+": ") || !strings.Contains(r.stderr, want) {
		t.Fatalf("want one %s line naming %q; got exit %d stdout %q stderr %q", code, want, r.code, r.stdout, r.stderr)
	}
}

// noStaging checks a generate left no half-made copy beside the bundle.
func noStaging(t *testing.T, root string) {
	t.Helper()
	left, _ := filepath.Glob(filepath.Join(root, ".artifacts/evidence-bundles/latest/docs/reports/.final-run.tmp-*"))
	if len(left) > 0 {
		t.Fatalf("staging copies left: %v", left)
	}
}

// TestBundleRegeneratesReproducibly: the same reports give the same
// digest; a report removed from the source leaves the bundle (the bundle
// is replaced, not merged), and a source file that is a link is bundled
// as the file it names, as Python's copytree does.
func TestBundleRegeneratesReproducibly(t *testing.T) {
	t.Parallel()
	root := bundleSourceRoot(t)
	first, r := bundleJSON(t, root, "--generate")
	if r.code != 0 {
		t.Fatalf("generate: %d %q", r.code, r.stderr)
	}
	again, _ := bundleJSON(t, root, "--generate")
	if first["reproducibility_digest"] != again["reproducibility_digest"] {
		t.Fatalf("digest changed: %v then %v", first["reproducibility_digest"], again["reproducibility_digest"])
	}
	src := filepath.Join(root, "docs/reports/final-run")
	removeBundleFile(t, filepath.Join(src, "evidence/a-c.txt"))
	if err := os.Symlink(filepath.Join(src, "run_evidence_index.md"), filepath.Join(src, "evidence/index-link.md")); err != nil {
		t.Fatal(err)
	}
	third, _ := bundleJSON(t, root, "--generate")
	anchor := filepath.Join(root, bundleAnchor)
	if _, err := os.Stat(filepath.Join(anchor, "evidence/a-c.txt")); !os.IsNotExist(err) {
		t.Errorf("a report removed from the source is still bundled: %v", err)
	}
	fi, err := os.Lstat(filepath.Join(anchor, "evidence/index-link.md"))
	if err != nil || !fi.Mode().IsRegular() {
		t.Errorf("a linked report is not bundled as a file: %v %v", fi, err)
	}
	if third["file_count"] != first["file_count"] || third["reproducibility_digest"] == first["reproducibility_digest"] {
		t.Errorf("after one file removed and one added: %v files, digest %v (was %v, %v)",
			third["file_count"], third["reproducibility_digest"], first["file_count"], first["reproducibility_digest"])
	}
	noStaging(t, root)
}

// TestBundleRefusesToReplaceItsSource: with --bundle-root "." the bundle
// would be written where its source is (the Python tool deletes the
// source, then fails); daokit refuses and the source stays whole. The
// same for a bundle inside its source.
func TestBundleRefusesToReplaceItsSource(t *testing.T) {
	t.Parallel()
	root := bundleSourceRoot(t)
	src := filepath.Join(root, "docs/reports/final-run")
	before, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, nil, "bundle", "--generate", "--root", root, "--bundle-root", ".")
	oneError(t, r, "E_BUNDLE_FAILED", src)
	r = runCLI(t, nil, "bundle", "--generate", "--root", root, "--source-dir", "docs", "--bundle-root", "docs/out")
	oneError(t, r, "E_BUNDLE_FAILED", filepath.Join(root, "docs"))
	after, err := os.ReadDir(src)
	if err != nil || len(after) != len(before) {
		t.Fatalf("source changed: %d entries, was %d (%v)", len(after), len(before), err)
	}
	if _, err := os.Stat(filepath.Join(root, "docs/out")); !os.IsNotExist(err) {
		t.Errorf("a refused bundle wrote something: %v", err)
	}
}

// TestBundleFailedCopyKeepsThePreviousBundle: a dangling link or a link
// back to its own folder in the source (copytree crashes on the first
// and recurses until the path is too long on the second) fails the
// generate with the path named, and the bundle made before still
// re-verifies.
func TestBundleFailedCopyKeepsThePreviousBundle(t *testing.T) {
	t.Parallel()
	for name, target := range map[string]string{"dangling": "no-such-report.md", "cycle": ".."} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := bundleSourceRoot(t)
			if r := runCLI(t, nil, "bundle", "--generate", "--root", root); r.code != 0 {
				t.Fatalf("generate: %d %q", r.code, r.stderr)
			}
			link := filepath.Join(root, "docs/reports/final-run/evidence/bad")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			oneError(t, runCLI(t, nil, "bundle", "--generate", "--root", root), "E_BUNDLE_FAILED", "bad")
			noStaging(t, root)
			v, r := bundleJSON(t, root, "--reverify")
			if r.code != 0 || v["status"] != "passed" {
				t.Fatalf("the previous bundle does not re-verify: %d %q %v", r.code, r.stderr, v)
			}
		})
	}
}

// TestBundleManifestNotTextIsAnError: a manifest that is not UTF-8 (the
// Python tool crashes with a traceback) is one E_BUNDLE_FAILED line
// naming it, in the reader's language.
func TestBundleManifestNotTextIsAnError(t *testing.T) {
	t.Parallel()
	root := bundleSourceRoot(t)
	if r := runCLI(t, nil, "bundle", "--generate", "--root", root); r.code != 0 {
		t.Fatalf("generate: %d %q", r.code, r.stderr)
	}
	manifest := filepath.Join(root, bundleAnchor, "evidence_manifest.sha256")
	writeBundleFile(t, manifest, "\xff\xfe not text\n")
	oneError(t, runCLI(t, nil, "bundle", "--reverify", "--root", root), "E_BUNDLE_FAILED", manifest)
	zh := runCLI(t, nil, "bundle", "--review", "--root", root, "--lang", "zh-CN")
	oneError(t, zh, "E_BUNDLE_FAILED", manifest)
	if !strings.Contains(zh.stderr, "不是 UTF-8 文本") {
		t.Errorf("not in Chinese: %q", zh.stderr)
	}
}

// TestBundleReadsAFinalRunFolderDirectly: a bundle root that is itself a
// final-run folder (it holds run_evidence_index.tsv) is its own anchor.
func TestBundleReadsAFinalRunFolderDirectly(t *testing.T) {
	t.Parallel()
	root := bundleSourceRoot(t)
	v, r := bundleJSON(t, root, "--reverify", "--bundle-root", "docs/reports/final-run")
	src := filepath.Join(root, "docs/reports/final-run")
	if r.code != 0 || v["status"] != "passed" || v["anchor_path"] != src || v["bundle_root"] != src {
		t.Fatalf("reverify of the source itself: %d %q %v", r.code, r.stderr, v)
	}
}

// TestBundleInterruptedKeepsThePreviousBundle: Ctrl-C during a generate
// is E_INTERRUPTED, exit 130, as in Python, and the bundle made before
// is untouched.
func TestBundleInterruptedKeepsThePreviousBundle(t *testing.T) {
	t.Parallel()
	root := bundleSourceRoot(t)
	first, r := bundleJSON(t, root, "--generate")
	if r.code != 0 {
		t.Fatalf("generate: %d %q", r.code, r.stderr)
	}
	writeBundleFile(t, filepath.Join(root, "docs/reports/final-run/RELEASE_SNAPSHOT.md"), "# Changed\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut strings.Builder
	code := run(ctx, []string{"bundle", "--generate", "--root", root}, stdio{in: strings.NewReader(""), out: &out, err: &errOut},
		func(string) string { return "" }, nil)
	if code != exitInterrupted || !strings.HasPrefix(errOut.String(), "E_INTERRUPTED: ") {
		t.Fatalf("interrupted generate: exit %d stderr %q", code, errOut.String())
	}
	noStaging(t, root)
	data, err := os.ReadFile(filepath.Join(root, bundleAnchor, "RELEASE_SNAPSHOT.md"))
	if err != nil || string(data) != "# Snapshot\n" {
		t.Fatalf("the previous bundle changed: %q %v", data, err)
	}
	v, _ := bundleJSON(t, root, "--reverify")
	if v["status"] != "passed" {
		t.Fatalf("the previous bundle does not re-verify: %v (first digest %v)", v, first["reproducibility_digest"])
	}
}

// TestBundleModesAreExclusive: no mode and two modes are usage errors
// (exit 2) in both languages; help lists the modes in both.
func TestBundleModesAreExclusive(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	r := runCLI(t, nil, "bundle", "--root", root, "--review", "--generate")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--generate and --review cannot be used together") {
		t.Errorf("two modes: %d %q", r.code, r.stderr)
	}
	r = runCLI(t, nil, "bundle", "--root", root, "--lang", "zh-CN")
	if r.code != exitUsage || !strings.Contains(r.stderr, "必须给出 --generate、--review、--reverify 之一") {
		t.Errorf("no mode in Chinese: %d %q", r.code, r.stderr)
	}
	for lang, want := range map[string]string{"en": "re-verify a release evidence bundle", "zh-CN": "复核发布证据包"} {
		h := runCLI(t, nil, "bundle", "--help", "--lang", lang)
		if h.code != 0 || !strings.Contains(h.stdout, want) || !strings.Contains(h.stdout, "--summary-json") {
			t.Errorf("help in %s: %d %q", lang, h.code, h.stdout)
		}
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("a usage error wrote %d entries", len(entries))
	}
}
