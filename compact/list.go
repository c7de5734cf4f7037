package compact

import "fmt"

// List names one of the pruned lists of a relay context.
type List int

// The pruned lists, in the order compaction processes and reports them.
const (
	// ExecutionLogs is execution_logs: what workers did.
	ExecutionLogs List = iota
	// StatusReports is status_reports: what the window observed.
	StatusReports
	// FailureNoise is failure_noise: failures and their resolution.
	FailureNoise
	// APIErrorDumps is api_error_dumps: errors from model and tool APIs.
	APIErrorDumps
	// EvidencePaths is evidence_paths: files that back a result.
	EvidencePaths
	numLists
)

var listKeys = [numLists]string{"execution_logs", "status_reports", "failure_noise", "api_error_dumps", "evidence_paths"}

// Lists returns every list in processing order.
func Lists() []List {
	return []List{ExecutionLogs, StatusReports, FailureNoise, APIErrorDumps, EvidencePaths}
}

// String returns the list's key in the context document.
func (l List) String() string {
	if l < 0 || l >= numLists {
		return fmt.Sprintf("List(%d)", int(l))
	}
	return listKeys[l]
}

// MarshalText writes the list's key.
func (l List) MarshalText() ([]byte, error) {
	if l < 0 || l >= numLists {
		return nil, fmt.Errorf("marshal list: unknown list %d", int(l))
	}
	return []byte(listKeys[l]), nil
}

// UnmarshalText reads a list's key.
func (l *List) UnmarshalText(text []byte) error {
	found, ok := listOf(string(text))
	if !ok {
		return fmt.Errorf("unmarshal list: unknown list %q", text)
	}
	*l = found
	return nil
}

// listOf returns the list a top-level key names.
func listOf(key string) (List, bool) {
	for i, k := range listKeys {
		if k == key {
			return List(i), true
		}
	}
	return 0, false
}
