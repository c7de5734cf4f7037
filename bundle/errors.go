package bundle

import "fmt"

// Codes are the Python tool's error codes, printed before the message.
const (
	CodeSourceMissing = "E_BUNDLE_SOURCE_MISSING"
	CodeAnchorMissing = "E_BUNDLE_ANCHOR_MISSING"
	CodeFailed        = "E_BUNDLE_FAILED"
)

// Kind says which failure an Error is, so that the command can word it in
// the reader's language.
type Kind int

// The failures a bundle command reports.
const (
	// SourceMissing: the source folder does not exist (Path).
	SourceMissing Kind = iota
	// AnchorMissing: neither <bundle>/docs/reports/final-run nor a bundle
	// root holding run_evidence_index.tsv (Path, Other = bundle root).
	AnchorMissing
	// Overlap: the bundle would be written over its own source (Path =
	// destination, Other = source); Python deletes the source.
	Overlap
	// Unreadable: a file or folder could not be read (Path, Err).
	Unreadable
	// NotText: a manifest, index or log is not UTF-8 text (Path).
	NotText
	// Unwritable: the bundle or the summary could not be written (Path, Err).
	Unwritable
	// NotCopyable: the source holds something a bundle cannot copy: a
	// dangling link, a link cycle, a device or a pipe (Path).
	NotCopyable
)

// Error is a failure of a bundle command.
type Error struct {
	Kind  Kind
	Path  string
	Other string
	Err   error
}

// Code is the E_ code the Python tool prints for this failure.
func (e *Error) Code() string {
	switch e.Kind {
	case SourceMissing:
		return CodeSourceMissing
	case AnchorMissing:
		return CodeAnchorMissing
	}
	return CodeFailed
}

// Error is the failure in English, for logs; the command prints the
// catalog's wording.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("bundle %d %s: %v", e.Kind, e.Path, e.Err)
	}
	return fmt.Sprintf("bundle %d %s %s", e.Kind, e.Path, e.Other)
}

// Unwrap gives errors.Is the cause (context.Canceled on Ctrl-C).
func (e *Error) Unwrap() error { return e.Err }
