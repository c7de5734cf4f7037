package controller

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// TestAFailingDocumentWriteIsLoggedOnce: a document write fails at every
// flush until something changes (an invalid pipeline, a full disk); the
// log says so once per distinct error and once more when it is written
// again, not five times a second.
func TestAFailingDocumentWriteIsLoggedOnce(t *testing.T) {
	var out bytes.Buffer
	c := &Controller{log: slog.New(slog.NewTextHandler(&out, nil))}
	invalid := errors.New("pipeline_state.json: $.role_lifecycle.session_dir:worker must be a non-empty string")
	full := errors.New("no space left on device")
	for _, err := range []error{invalid, invalid, invalid, full, full, nil, nil} {
		_ = c.wrote(docPipeline, "write pipeline", func() error { return err }, "task_id", "T1")
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "session_dir") || !strings.Contains(lines[1], "no space") ||
		!strings.Contains(lines[2], "written again") {
		t.Errorf("log:\n%s\nwant the two errors once each, then that it was written again", out.String())
	}
}
