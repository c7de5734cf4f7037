package bundle

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// RequiredAnchorPaths must all exist in a bundle's anchor for --reverify
// to pass, in the order the Python tool lists the missing ones.
var RequiredAnchorPaths = []string{
	"pre_batch_results.tsv",
	"batch_results.tsv",
	"batch_resume_from_dkt003_results.tsv",
	"run_evidence_index.tsv",
	"run_evidence_index.md",
	"evidence_manifest.sha256",
	"evidence",
	"RELEASE_SNAPSHOT.md",
}

// RequiredIndexColumns is the header run_evidence_index.tsv must have.
var RequiredIndexColumns = []string{
	"task_id", "run_id", "ledger_source", "execution_track", "evidence_complete",
	"final_assessment", "report_md", "verification_log", "audit_summary",
}

const (
	manifestFile = "evidence_manifest.sha256"
	indexFile    = "run_evidence_index.tsv"
	logName      = "verification.log"
)

// anchorOf finds a bundle's reports: <base>/docs/reports/final-run, or
// base itself when it holds run_evidence_index.tsv (a final-run folder
// given directly).
func anchorOf(base string) (string, error) {
	anchored := filepath.Join(base, filepath.FromSlash(AnchorSubpath))
	if isDir(anchored) {
		return anchored, nil
	}
	if exists(filepath.Join(base, indexFile)) {
		return base, nil
	}
	return "", &Error{Kind: AnchorMissing, Path: anchored, Other: base}
}

// Review counts a bundle's files, manifest entries and verification logs;
// it fails (status, not exit code) on a missing or malformed manifest.
func Review(ctx context.Context, o Options) (ReviewSummary, error) {
	root := Resolve(o.Root, ".")
	base := Resolve(root, o.BundleRoot)
	anchor, err := anchorOf(base)
	if err != nil {
		return ReviewSummary{}, err
	}
	files, err := listFiles(anchor)
	if err != nil {
		return ReviewSummary{}, err
	}
	entries, malformed, err := readManifest(filepath.Join(anchor, manifestFile))
	if err != nil {
		return ReviewSummary{}, err
	}
	logs, err := verificationLogs(anchor)
	if err != nil {
		return ReviewSummary{}, err
	}
	s := ReviewSummary{
		SchemaVersion:          SchemaVersion,
		Workflow:               "bundle-review",
		Status:                 StatusPassed,
		BundleRoot:             base,
		AnchorPath:             anchor,
		FileCount:              len(files),
		ManifestEntries:        len(entries),
		VerificationLogs:       len(logs),
		MalformedManifestLines: malformed,
	}
	if len(malformed) > 0 {
		s.Status = StatusFailed
	}
	return s, writeSummary(Resolve(root, o.SummaryJSON), s)
}

// Reverify checks a bundle against itself: the required files are there,
// the index has its header, every manifest entry's file exists with the
// recorded sha256, and every verification log records its commands.
func Reverify(ctx context.Context, o Options) (ReverifySummary, error) {
	root := Resolve(o.Root, ".")
	base := Resolve(root, o.BundleRoot)
	anchor, err := anchorOf(base)
	if err != nil {
		return ReverifySummary{}, err
	}
	s := ReverifySummary{
		SchemaVersion:                        SchemaVersion,
		Workflow:                             "bundle-reverify",
		BundleRoot:                           base,
		AnchorPath:                           anchor,
		RequiredPathsMissing:                 []string{},
		ManifestMissingPaths:                 []string{},
		ManifestMismatches:                   []Mismatch{},
		VerificationLogsMissingCommandMarker: []string{},
	}
	for _, p := range RequiredAnchorPaths {
		if !exists(filepath.Join(anchor, p)) {
			s.RequiredPathsMissing = append(s.RequiredPathsMissing, p)
		}
	}
	if s.RunEvidenceIndexHeader, err = indexHeader(filepath.Join(anchor, indexFile)); err != nil {
		return ReverifySummary{}, err
	}
	s.RunEvidenceIndexHeaderMatches = equal(s.RunEvidenceIndexHeader, RequiredIndexColumns)
	entries, malformed, err := readManifest(filepath.Join(anchor, manifestFile))
	if err != nil {
		return ReverifySummary{}, err
	}
	s.ManifestEntriesChecked, s.MalformedManifestLines = len(entries), malformed
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return ReverifySummary{}, err
		}
		file := manifestTarget(e.path, base, anchor)
		if !isFile(file) {
			s.ManifestMissingPaths = append(s.ManifestMissingPaths, e.path)
			continue
		}
		sum, _, err := hashFile(file)
		if err != nil {
			return ReverifySummary{}, err
		}
		if sum != e.digest {
			s.ManifestMismatches = append(s.ManifestMismatches, Mismatch{Path: e.path, ExpectedSHA256: e.digest, ObservedSHA256: sum})
		}
	}
	logs, err := verificationLogs(anchor)
	if err != nil {
		return ReverifySummary{}, err
	}
	s.VerificationLogsChecked = len(logs)
	for _, rel := range logs {
		if !hasCommandMarkers(filepath.Join(anchor, filepath.FromSlash(rel))) {
			s.VerificationLogsMissingCommandMarker = append(s.VerificationLogsMissingCommandMarker, rel)
		}
	}
	s.Status = StatusPassed
	if len(s.RequiredPathsMissing) > 0 || !s.RunEvidenceIndexHeaderMatches || len(malformed) > 0 ||
		len(s.ManifestMissingPaths) > 0 || len(s.ManifestMismatches) > 0 || len(logs) == 0 ||
		len(s.VerificationLogsMissingCommandMarker) > 0 {
		s.Status = StatusFailed
	}
	return s, writeSummary(Resolve(root, o.SummaryJSON), s)
}

// manifestEntry is one "<sha256>  <path>" line of the manifest.
type manifestEntry struct{ digest, path string }

// readManifest reads the manifest's entries and the lines that are not
// entries; a missing manifest is one malformed line,
// "missing:evidence_manifest.sha256", as the Python tool reports it.
func readManifest(path string) ([]manifestEntry, []string, error) {
	entries, malformed := []manifestEntry{}, []string{}
	if !isFile(path) {
		return entries, append(malformed, "missing:"+filepath.Base(path)), nil
	}
	text, err := readText(path)
	if err != nil {
		return nil, nil, err
	}
	for _, line := range splitLines(text) {
		line = pyStrip(line)
		if line == "" {
			continue
		}
		digest, p, ok := strings.Cut(line, "  ")
		digest, p = pyStrip(digest), pyStrip(p)
		if !ok || digest == "" || p == "" {
			malformed = append(malformed, line)
			continue
		}
		entries = append(entries, manifestEntry{digest: digest, path: p})
	}
	return entries, malformed, nil
}

// manifestTarget finds the file a manifest path names: an absolute path
// as is; a path starting docs/reports/final-run under the bundle root, or
// under the anchor without that prefix; any other path under the anchor,
// else under the bundle root.
func manifestTarget(p, base, anchor string) string {
	if filepath.IsAbs(p) {
		return p
	}
	ps := parts(p)
	if rest, ok := trimmedParts(ps); ok {
		if candidate := filepath.Join(base, filepath.Join(ps...)); exists(candidate) {
			return candidate
		}
		return filepath.Join(anchor, filepath.Join(rest...))
	}
	if candidate := filepath.Join(anchor, filepath.Join(ps...)); exists(candidate) {
		return candidate
	}
	return filepath.Join(base, filepath.Join(ps...))
}

// indexHeader is the first line of the index split at tabs; nothing
// when the file is missing or empty.
func indexHeader(path string) ([]string, error) {
	if !isFile(path) {
		return []string{}, nil
	}
	text, err := readText(path)
	if err != nil {
		return nil, err
	}
	lines := splitLines(text)
	if len(lines) == 0 {
		return []string{}, nil
	}
	return strings.Split(lines[0], "\t"), nil
}

// verificationLogs lists every entry named verification.log under the
// anchor's evidence folder, sorted as Python sorts paths, relative to the
// anchor.
func verificationLogs(anchor string) ([]string, error) {
	evidence := filepath.Join(anchor, "evidence")
	found, err := walkEntries(evidence, logName)
	if err != nil {
		return nil, &Error{Kind: Unreadable, Path: evidence, Err: err}
	}
	logs := make([]string, 0, len(found))
	for _, rel := range found {
		logs = append(logs, "evidence/"+rel)
	}
	sort.Slice(logs, func(i, j int) bool { return lessParts(logs[i], logs[j]) })
	return logs, nil
}

// hasCommandMarkers reports whether a verification log records at least
// one command. A log that cannot be read records none (Python crashes on
// it; here it fails the check and names the log).
func hasCommandMarkers(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	s := string(data)
	return strings.Contains(s, "Command:") || strings.Contains(s, "=== COMMAND ENTRY")
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
