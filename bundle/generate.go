package bundle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Options are the bundle command's paths, relative to Root unless
// absolute, with the Python tool's defaults in the command.
type Options struct {
	Root        string // absolute; resolved like the rest
	SourceDir   string // --source-dir (generate only)
	BundleRoot  string // --bundle-root
	SummaryJSON string // --summary-json
}

// Generate copies the source folder to <bundle-root>/docs/reports/final-run
// and records every file's path, sha256 and size, and the digest of that
// list: two bundles of the same reports have the same digest, whoever
// made them. The summary is written to SummaryJSON and returned.
//
// The new copy is made beside the old one and swapped in only when whole,
// so a copy that fails leaves the previous bundle as it was.
func Generate(ctx context.Context, o Options) (GenerateSummary, error) {
	root := Resolve(o.Root, ".")
	source := Resolve(root, o.SourceDir)
	if !isDir(source) {
		return GenerateSummary{}, &Error{Kind: SourceMissing, Path: source}
	}
	base := Resolve(root, o.BundleRoot)
	anchor := filepath.Join(base, filepath.FromSlash(AnchorSubpath))
	if within(anchor, source) || within(source, anchor) {
		return GenerateSummary{}, &Error{Kind: Overlap, Path: anchor, Other: source}
	}
	if err := os.MkdirAll(filepath.Dir(anchor), 0o755); err != nil {
		return GenerateSummary{}, &Error{Kind: Unwritable, Path: filepath.Dir(anchor), Err: err}
	}
	staging, err := os.MkdirTemp(filepath.Dir(anchor), ".final-run.tmp-*")
	if err != nil {
		return GenerateSummary{}, &Error{Kind: Unwritable, Path: filepath.Dir(anchor), Err: err}
	}
	defer os.RemoveAll(staging)
	copied := filepath.Join(staging, "final-run")
	if err := copyTree(ctx, source, copied, map[string]bool{}); err != nil {
		return GenerateSummary{}, err
	}
	if err := os.RemoveAll(anchor); err != nil {
		return GenerateSummary{}, &Error{Kind: Unwritable, Path: anchor, Err: err}
	}
	if err := os.Rename(copied, anchor); err != nil {
		return GenerateSummary{}, &Error{Kind: Unwritable, Path: anchor, Err: err}
	}
	records, err := recordFiles(ctx, base, anchor)
	if err != nil {
		return GenerateSummary{}, err
	}
	s := GenerateSummary{
		SchemaVersion:         SchemaVersion,
		Workflow:              "bundle-generate",
		Status:                StatusPassed,
		Root:                  root,
		SourceDir:             display(source, root),
		BundleRoot:            display(base, root),
		AnchorPath:            AnchorSubpath,
		FileCount:             len(records),
		ReproducibilityDigest: Digest(records),
		Files:                 records,
	}
	return s, writeSummary(Resolve(root, o.SummaryJSON), s)
}

// Digest is the reproducibility digest of a bundle's file list: the
// sha256 of one "path|sha256|size\n" line per file, in the list's order.
func Digest(records []FileRecord) string {
	h := sha256.New()
	for _, r := range records {
		fmt.Fprintf(h, "%s|%s|%d\n", r.Path, r.SHA256, r.SizeBytes)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// recordFiles hashes every file under anchor, named relative to base and
// sorted as Python sorts paths.
func recordFiles(ctx context.Context, base, anchor string) ([]FileRecord, error) {
	files, err := listFiles(anchor)
	if err != nil {
		return nil, err
	}
	prefix, _ := filepath.Rel(base, anchor)
	records := make([]FileRecord, 0, len(files))
	for _, rel := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sum, size, err := hashFile(filepath.Join(anchor, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		records = append(records, FileRecord{Path: filepath.ToSlash(prefix) + "/" + rel, SHA256: sum, SizeBytes: size})
	}
	return records, nil
}

// listFiles is sorted(p for p in dir.rglob("*") if p.is_file()), relative
// to dir.
func listFiles(dir string) ([]string, error) {
	entries, err := walkEntries(dir, "")
	if err != nil {
		return nil, &Error{Kind: Unreadable, Path: dir, Err: err}
	}
	files := entries[:0]
	for _, rel := range entries {
		if isFile(filepath.Join(dir, filepath.FromSlash(rel))) {
			files = append(files, rel)
		}
	}
	sort.Slice(files, func(i, j int) bool { return lessParts(files[i], files[j]) })
	return files, nil
}

// hashFile is the sha256 of a file's bytes and its size.
func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, &Error{Kind: Unreadable, Path: path, Err: err}
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, &Error{Kind: Unreadable, Path: path, Err: err}
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// trimmedParts drops the anchor's own parts from the front of a manifest
// path, or reports that it does not start with them.
func trimmedParts(p []string) ([]string, bool) {
	anchor := strings.Split(AnchorSubpath, "/")
	if len(p) < len(anchor) {
		return nil, false
	}
	for i, s := range anchor {
		if p[i] != s {
			return nil, false
		}
	}
	return p[len(anchor):], true
}
