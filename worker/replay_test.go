package worker

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/daokit/daokit/worker/transcript"
)

// Replay reads an attempt's output from where it started: an earlier
// attempt's result before the offset is not its, and a last line without
// its newline is not decoded.
func TestReplayReadsTheAttemptFromItsOffset(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "artifacts", "T", "R", "S1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	earlier := transcript.FormatLine(transcript.Event{Type: transcript.EventResult, Text: "earlier"}) + "\n"
	result := transcript.FormatLine(transcript.Event{Type: transcript.EventResult, Text: "this attempt"})
	progress := transcript.FormatLine(transcript.Event{Type: transcript.EventProgress, Text: "working"}) + "\n"
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := Spec{Kind: "sim", ArtifactDir: dir, ArtifactRoot: root}
	from := LogOffsets{Stdout: int64(len(earlier))}
	replay := func() (Replayed, []transcript.Record, error) {
		var recs []transcript.Record
		r, err := Replay(spec, from, func(rec transcript.Record) { recs = append(recs, rec) })
		return r, recs, err
	}

	write(StdoutLog, earlier+progress+result[:len(result)/2])
	write(StderrLog, "warning: slow disk\n")
	got, recs, err := replay()
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary.Result != nil {
		t.Fatalf("a torn result, or the earlier attempt's, was read as this attempt's: %+v", got.Summary.Result)
	}
	if got.Torn != int64(len(result)/2) || len(recs) != 2 || got.Stats.StdoutLines != 1 || got.Stats.StderrLines != 1 {
		t.Fatalf("torn %d, %d records, stats %+v", got.Torn, len(recs), got.Stats)
	}

	write(StdoutLog, earlier+progress+result+"\n")
	got, _, err = replay()
	if err != nil || got.Summary.Result == nil || got.Summary.Result.Text != "this attempt" || got.Torn != 0 {
		t.Fatalf("complete result: %+v, torn %d, %v", got.Summary.Result, got.Torn, err)
	}

	write(StdoutLog, "short\n")
	if _, _, err := replay(); !errors.Is(err, ErrLogShrank) {
		t.Fatalf("a log shorter than the offset: %v, want ErrLogShrank", err)
	}
	if err := os.Remove(filepath.Join(dir, StderrLog)); err != nil {
		t.Fatal(err)
	}
	write(StdoutLog, earlier+progress+result+"\n")
	if _, _, err := replay(); err == nil {
		t.Fatal("a missing log replayed")
	}
}

// A Process says where its output starts in logs that hold an earlier
// attempt's, and what it wrote replays to the Summary it reported.
func TestProcessLogOffsetsReplayToItsSummary(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "artifacts", "T", "R", "S1")
	spec := Spec{Argv: []string{"sh", "-c", `echo '@daokit {"type":"session","id":"s-1"}'; echo '@daokit {"type":"result","summary":"done it"}'; echo oops >&2`},
		Kind: "sim", ArtifactDir: dir, ArtifactRoot: root}
	first, err := Start(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	first.Discard()
	first.Wait()
	second, err := Start(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	second.Discard()
	res := second.Wait()
	from := second.LogOffsets()
	if from.Stdout != res.Stats.StdoutLogBytes/2 || from.Stderr != res.Stats.StderrLogBytes/2 {
		t.Fatalf("offsets %+v, logs %d/%d bytes after two equal attempts", from, res.Stats.StdoutLogBytes, res.Stats.StderrLogBytes)
	}
	got, err := Replay(spec, from, func(transcript.Record) {})
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary.Result == nil || got.Summary.Result.Text != res.Summary.Result.Text || got.Summary.SessionID != "s-1" ||
		got.Stats.StdoutLines != res.Stats.StdoutLines || got.Stats.StderrLines != res.Stats.StderrLines {
		t.Fatalf("replayed %+v / %+v, the process reported %+v / %+v", got.Summary, got.Stats, res.Summary, res.Stats)
	}
}

// The agent CLIs' own final lines read back as they were read live: a
// Claude `result` and a Codex `turn.completed` as a successful result,
// their failures as failed ones.
func TestReplayReadsTheAgentCLIsResults(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file, kind string
		failed     bool
	}{
		{"claude-stream-json-success.jsonl", "claude", false},
		{"claude-stream-json-error.jsonl", "claude", true},
		{"codex-exec-json-success.jsonl", "codex", false},
		{"codex-exec-json-failed.jsonl", "codex", true},
	} {
		stream, err := os.ReadFile(filepath.Join("transcript", "testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		root := t.TempDir()
		dir := filepath.Join(root, "a")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		earlier := "an earlier attempt's line\n"
		if err := os.WriteFile(filepath.Join(dir, StdoutLog), append([]byte(earlier), stream...), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, StderrLog), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Replay(Spec{Kind: c.kind, ArtifactDir: dir, ArtifactRoot: root}, LogOffsets{Stdout: int64(len(earlier))},
			func(transcript.Record) {})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if r := got.Summary.Result; r == nil || r.Failed != c.failed || got.Summary.SessionID == "" {
			t.Errorf("%s: result %+v, session %q, stats %+v", c.file, r, got.Summary.SessionID, got.Stats)
		}
	}
}
