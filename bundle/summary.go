package bundle

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/daokit/daokit/ledger"
)

// SchemaVersion is the summary's schema_version, as the Python tool
// writes it.
const SchemaVersion = "1.0.0"

// FileRecord is one bundled file: its path under the bundle root, its
// sha256 and its size.
type FileRecord struct {
	Path      string `json:"path"`
	SHA256    string `json:"sha256"`
	SizeBytes int64  `json:"size_bytes"`
}

// GenerateSummary is what --generate writes and prints.
type GenerateSummary struct {
	SchemaVersion         string       `json:"schema_version"`
	Workflow              string       `json:"workflow"`
	Status                string       `json:"status"`
	Root                  string       `json:"root"`
	SourceDir             string       `json:"source_dir"`
	BundleRoot            string       `json:"bundle_root"`
	AnchorPath            string       `json:"anchor_path"`
	FileCount             int          `json:"file_count"`
	ReproducibilityDigest string       `json:"reproducibility_digest"`
	Files                 []FileRecord `json:"files"`
}

// ReviewSummary is what --review writes and prints.
type ReviewSummary struct {
	SchemaVersion          string   `json:"schema_version"`
	Workflow               string   `json:"workflow"`
	Status                 string   `json:"status"`
	BundleRoot             string   `json:"bundle_root"`
	AnchorPath             string   `json:"anchor_path"`
	FileCount              int      `json:"file_count"`
	ManifestEntries        int      `json:"manifest_entries"`
	VerificationLogs       int      `json:"verification_logs"`
	MalformedManifestLines []string `json:"malformed_manifest_lines"`
}

// Mismatch is a manifest entry whose file has another hash.
type Mismatch struct {
	Path           string `json:"path"`
	ExpectedSHA256 string `json:"expected_sha256"`
	ObservedSHA256 string `json:"observed_sha256"`
}

// ReverifySummary is what --reverify writes and prints.
type ReverifySummary struct {
	SchemaVersion                        string     `json:"schema_version"`
	Workflow                             string     `json:"workflow"`
	Status                               string     `json:"status"`
	BundleRoot                           string     `json:"bundle_root"`
	AnchorPath                           string     `json:"anchor_path"`
	RequiredPathsMissing                 []string   `json:"required_paths_missing"`
	RunEvidenceIndexHeader               []string   `json:"run_evidence_index_header"`
	RunEvidenceIndexHeaderMatches        bool       `json:"run_evidence_index_header_matches"`
	ManifestEntriesChecked               int        `json:"manifest_entries_checked"`
	MalformedManifestLines               []string   `json:"malformed_manifest_lines"`
	ManifestMissingPaths                 []string   `json:"manifest_missing_paths"`
	ManifestMismatches                   []Mismatch `json:"manifest_mismatches"`
	VerificationLogsChecked              int        `json:"verification_logs_checked"`
	VerificationLogsMissingCommandMarker []string   `json:"verification_logs_missing_command_markers"`
}

// Passed is the verdict of the summary's status field.
const (
	StatusPassed = "passed"
	StatusFailed = "failed"
)

// Encode renders a summary as the Python tool does, both in the summary
// file and for --json: json.dumps(indent=2, sort_keys=True,
// ensure_ascii=True) and a newline.
func Encode(summary any) ([]byte, error) {
	canonical, err := ledger.MarshalCanonical(summary)
	if err != nil {
		return nil, err
	}
	return ledger.MarshalDocument(json.RawMessage(canonical))
}

// writeSummary writes the summary file, creating its folder, through a
// temporary file and a rename: a reader never sees half of it.
func writeSummary(path string, summary any) error {
	data, err := Encode(summary)
	if err != nil {
		return &Error{Kind: Unwritable, Path: path, Err: err}
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return &Error{Kind: Unwritable, Path: path, Err: err}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return &Error{Kind: Unwritable, Path: path, Err: err}
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		if err := os.Chmod(tmp.Name(), 0o644); err != nil {
			werr = err
		}
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		_ = os.Remove(tmp.Name())
		return &Error{Kind: Unwritable, Path: path, Err: werr}
	}
	return nil
}
