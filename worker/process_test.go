package worker

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/daokit/daokit/worker/transcript"
)

func TestStartStreamsLinesAndWritesArtifacts(t *testing.T) {
	checkGoroutines(t)
	dir := filepath.Join(t.TempDir(), "artifacts", "T1", "R1", "S1")
	spec := shSpec(`echo one; echo 'two 二' >&2; printf 'three\r\n'; printf 'no newline'`)
	spec.ArtifactDir = dir
	p := start(t, context.Background(), spec)
	if p.PID() <= 0 {
		t.Fatalf("PID: got %d, want > 0", p.PID())
	}
	recs := collect(t, p)
	res := p.Wait()

	if got, want := join(lines(recs, transcript.Stdout)), "one|three|no newline"; got != want {
		t.Errorf("stdout lines: got %q, want %q", got, want)
	}
	if got, want := join(lines(recs, transcript.Stderr)), "two 二"; got != want {
		t.Errorf("stderr lines: got %q, want %q", got, want)
	}
	if !res.Success() || res.ExitCode != 0 || res.PID != p.PID() {
		t.Errorf("result: got %+v, want success with pid %d", res, p.PID())
	}
	if res.Stats.StdoutLines != 3 || res.Stats.StderrLines != 1 || res.Stats.StdoutBytes != 21 {
		t.Errorf("stats: got %+v, want 3 stdout lines (21 bytes), 1 stderr line", res.Stats)
	}
	for name, want := range map[string]string{StdoutLog: "one\nthree\r\nno newline", StderrLog: "two 二\n"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(data) != want {
			t.Errorf("%s: got %q (%v), want %q", name, data, err, want)
		}
	}
	for _, r := range recs {
		if r.Time.Before(res.StartedAt) || r.Time.After(res.EndedAt) {
			t.Errorf("record %q time %v outside the run %v–%v", r.Text, r.Time, res.StartedAt, res.EndedAt)
		}
	}
	assertReaped(t, p.PID())
}

func TestArtifactsAppendAcrossAttempts(t *testing.T) {
	dir := t.TempDir()
	var wantOut, wantErr int64
	for _, word := range []string{"first", "second"} {
		spec := shSpec("echo " + word + "; echo oops >&2")
		spec.ArtifactDir = dir
		p := start(t, context.Background(), spec)
		collect(t, p)
		res := p.Wait()
		if err := p.LogsDurable(); err != nil {
			t.Fatalf("LogsDurable: %v", err)
		}
		// The sizes a STEP_COMPLETED records: the whole file, earlier
		// attempts included, so that a log a power cut shortened shows.
		wantOut += int64(len(word + "\n"))
		wantErr += int64(len("oops\n"))
		if res.Stats.StdoutLogBytes != wantOut || res.Stats.StderrLogBytes != wantErr {
			t.Errorf("after %q: log sizes %d and %d, want %d and %d", word,
				res.Stats.StdoutLogBytes, res.Stats.StderrLogBytes, wantOut, wantErr)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, StdoutLog))
	if got, want := string(data), "first\nsecond\n"; got != want {
		t.Errorf("stdout.log after two attempts: got %q, want %q", got, want)
	}
}

func TestExitResults(t *testing.T) {
	tests := []struct {
		name     string
		script   string
		code     int
		signal   syscall.Signal
		signame  string
		succeeds bool
	}{
		{"success", "exit 0", 0, 0, "", true},
		{"non-zero exit", "exit 3", 3, 0, "", false},
		{"killed by a signal", "kill -KILL $$", -1, syscall.SIGKILL, "SIGKILL", false},
		{"terminated by a signal", "kill -TERM $$", -1, syscall.SIGTERM, "SIGTERM", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := start(t, context.Background(), shSpec(tt.script))
			collect(t, p)
			r := p.Wait()
			if r.ExitCode != tt.code || r.Signal != tt.signal || r.SignalName() != tt.signame || r.Success() != tt.succeeds || r.Stopped != transcript.StopNone {
				t.Errorf("got code %d signal %v (%q) success %v stopped %q; want %d %v (%q) %v, not stopped",
					r.ExitCode, r.Signal, r.SignalName(), r.Success(), r.Stopped, tt.code, tt.signal, tt.signame, tt.succeeds)
			}
			if r.Duration() <= 0 {
				t.Errorf("duration: got %v, want > 0", r.Duration())
			}
		})
	}
}

func TestSpawnErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		spec Spec
		op   string
		is   error
	}{
		{"no such program", Spec{Argv: []string{"daokit-no-such-program-xyz"}}, "start", exec.ErrNotFound},
		{"no such directory", Spec{Argv: []string{"true"}, Dir: filepath.Join(file, "missing")}, "start", nil},
		{"artifact folder is a file", Spec{Argv: []string{"true"}, ArtifactDir: filepath.Join(file, "a")}, "artifacts", nil},
		{"not executable", Spec{Argv: []string{file}}, "start", fs.ErrPermission},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Start(context.Background(), tt.spec)
			var se *SpawnError
			if p != nil || !errors.As(err, &se) || se.Op != tt.op {
				t.Fatalf("Start: got %v, %v; want a *SpawnError of op %q", p, err, tt.op)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Start: got %v, want it to wrap %v", err, tt.is)
			}
		})
	}
	if _, err := Start(context.Background(), Spec{}); !errors.Is(err, ErrNoCommand) {
		t.Errorf("Start(empty): got %v, want ErrNoCommand", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Start(ctx, Spec{Argv: []string{"true"}}); !errors.Is(err, context.Canceled) {
		t.Errorf("Start(cancelled ctx): got %v, want context.Canceled", err)
	}
}

// TestStopKillsTheWholeGroup starts a shell with two background children
// and stops it three ways; nothing of the group may survive and the
// leader must be reaped.
func TestStopKillsTheWholeGroup(t *testing.T) {
	tests := []struct {
		name  string
		stop  func(p *Process, cancel context.CancelFunc)
		cause transcript.StopCause
	}{
		{"Cancel", func(p *Process, _ context.CancelFunc) { p.Cancel() }, transcript.StopCancelled},
		{"context", func(_ *Process, cancel context.CancelFunc) { cancel() }, transcript.StopCancelled},
		{"Stop hung", func(p *Process, _ context.CancelFunc) { p.Stop(transcript.StopHung) }, transcript.StopHung},
		{"Stop lease lost", func(p *Process, _ context.CancelFunc) { p.Stop(transcript.StopLeaseLost) }, transcript.StopLeaseLost},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkGoroutines(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			p := start(t, ctx, shSpec(`sleep 1000 & sleep 1000 & echo "kids $!"; wait`))
			waitFor(t, p, func(r transcript.Record) bool { return strings.HasPrefix(r.Text, "kids ") })
			if groupGone(p.PID()) {
				t.Fatal("group gone before the stop")
			}
			tt.stop(p, cancel)
			collect(t, p)
			r := p.Wait()
			if r.Stopped != tt.cause {
				t.Errorf("Stopped: got %q, want %q", r.Stopped, tt.cause)
			}
			if r.Signal != syscall.SIGTERM {
				t.Errorf("Signal: got %v, want SIGTERM (the shell does not trap it)", r.Signal)
			}
			assertGroupEnded(t, p.PID())
			assertReaped(t, p.PID())
		})
	}
}

func TestTimeoutStopsTheWorker(t *testing.T) {
	spec := helperSpec(t, "sim", &SimOptions{Silent: true})
	spec.Timeout = time.Second
	p := start(t, context.Background(), spec)
	collect(t, p)
	r := p.Wait()
	if !r.TimedOut() || r.Cancelled() {
		t.Errorf("got stopped %q, want timeout", r.Stopped)
	}
	if r.Duration() < spec.Timeout {
		t.Errorf("duration: got %v, want at least the timeout %v", r.Duration(), spec.Timeout)
	}
	// SIGTERM first, not SIGKILL: the helper handles it by returning the
	// cancelled exit code, or, on a machine so loaded that the helper had
	// not installed its handler within the timeout, SIGTERM's default
	// action ends it.
	if r.ExitCode != SimCancelledCode && r.Signal != syscall.SIGTERM {
		t.Errorf("exit code: got %d (signal %v), want %d or SIGTERM", r.ExitCode, r.Signal, SimCancelledCode)
	}
	assertGroupEnded(t, p.PID())
}

func TestStopGraceEndsInSIGKILL(t *testing.T) {
	spec := helperSpec(t, "ignore-term", nil)
	spec.StopGrace = 300 * time.Millisecond
	p := start(t, context.Background(), spec)
	waitFor(t, p, textIs("ready"))
	stopped := time.Now()
	p.Cancel()
	collect(t, p)
	r := p.Wait()
	if r.Signal != syscall.SIGKILL || !r.Cancelled() {
		t.Errorf("got signal %v stopped %q, want SIGKILL after the grace period, cancelled", r.Signal, r.Stopped)
	}
	if waited := time.Since(stopped); waited < spec.StopGrace {
		t.Errorf("killed after %v, want at least the grace period %v", waited, spec.StopGrace)
	}
	assertGroupEnded(t, p.PID())
}

func TestSecondStopSkipsTheGrace(t *testing.T) {
	spec := helperSpec(t, "ignore-term", nil)
	spec.StopGrace = time.Hour
	p := start(t, context.Background(), spec)
	waitFor(t, p, textIs("ready"))
	p.Stop(transcript.StopTimeout)
	p.Stop(transcript.StopHung)
	collect(t, p)
	r := p.Wait()
	if r.Signal != syscall.SIGKILL || r.Stopped != transcript.StopTimeout {
		t.Errorf("got signal %v stopped %q, want SIGKILL with the first cause %q", r.Signal, r.Stopped, transcript.StopTimeout)
	}
}

func TestZeroGraceKillsAtOnce(t *testing.T) {
	spec := helperSpec(t, "ignore-term", nil)
	spec.StopGrace = 0
	p := start(t, context.Background(), spec)
	waitFor(t, p, textIs("ready"))
	p.Cancel()
	collect(t, p)
	if r := p.Wait(); r.Signal != syscall.SIGKILL {
		t.Errorf("signal: got %v, want SIGKILL", r.Signal)
	}
}

// TestLeftoversAreKilledWhenTheLeaderExits: a worker that exits leaving a
// background child behind must not leave it running.
func TestLeftoversAreKilledWhenTheLeaderExits(t *testing.T) {
	p := start(t, context.Background(), shSpec(`sleep 1000 & echo $!`))
	recs := collect(t, p)
	r := p.Wait()
	if !r.Success() {
		t.Errorf("result: got %+v, want success", r)
	}
	out := lines(recs, transcript.Stdout)
	if len(out) != 1 {
		t.Fatalf("stdout: got %q, want the child's pid", out)
	}
	child, err := strconv.Atoi(out[0])
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "left-over child gone", func() bool { return processGone(child) })
	assertGroupEnded(t, p.PID())
}

// TestEscapedDescendantDoesNotBlockWait: a descendant in a session of its
// own keeps the output pipe open; Wait must still return (after the drain
// timeout) rather than hang.
func TestEscapedDescendantDoesNotBlockWait(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the stdin delay")
	}
	p := start(t, context.Background(), shSpec(`setsid sleep 1000 & echo $!`))
	var escaped int
	r := waitFor(t, p, func(transcript.Record) bool { return true })
	escaped, _ = strconv.Atoi(r.Text)
	t.Cleanup(func() {
		if escaped > 0 {
			_ = syscall.Kill(escaped, syscall.SIGKILL)
		}
	})
	done := make(chan Result, 1)
	go func() { done <- p.Wait() }()
	select {
	case res := <-done:
		if !res.Success() {
			t.Errorf("result: got %+v, want success", res)
		}
	case <-time.After(stdinDelay + 10*time.Second):
		t.Fatal("Wait blocked by a descendant that left the process group")
	}
	collect(t, p)
}

func TestLongLinesAreCut(t *testing.T) {
	dir := t.TempDir()
	// 3-byte runes, so that a cut at 64 KiB falls inside one.
	spec := shSpec(`i=0; while [ $i -lt 30000 ]; do printf '界'; i=$((i+1)); done; echo; echo after`)
	spec.ArtifactDir = dir
	p := start(t, context.Background(), spec)
	recs := collect(t, p)
	p.Wait()
	out := lines(recs, transcript.Stdout)
	if len(out) != 2 || out[1] != "after" {
		t.Fatalf("stdout: got %d lines, want the long line then %q", len(out), "after")
	}
	long := recs[0]
	if !long.Truncated || long.Size != 90000 || len(long.Text) > DefaultLineLimit || !utf8.ValidString(long.Text) {
		t.Errorf("long line: truncated %v size %d text %d bytes valid %v; want cut at %d on a rune boundary, size 90000",
			long.Truncated, long.Size, len(long.Text), utf8.ValidString(long.Text), DefaultLineLimit)
	}
	if st := p.Stats(); st.Truncated != 1 {
		t.Errorf("Stats.Truncated: got %d, want 1", st.Truncated)
	}
	if fi, err := os.Stat(filepath.Join(dir, StdoutLog)); err != nil || fi.Size() != 90000+1+6 {
		t.Errorf("stdout.log: got %v %v, want all %d bytes", fi.Size(), err, 90000+1+6)
	}
}

func TestInvalidUTF8IsReplacedInRecordsOnly(t *testing.T) {
	dir := t.TempDir()
	spec := shSpec(`printf 'a\377b\n'`)
	spec.ArtifactDir = dir
	p := start(t, context.Background(), spec)
	recs := collect(t, p)
	p.Wait()
	if got := recs[0].Text; got != "a\uFFFDb" {
		t.Errorf("record: got %q, want %q", got, "a\uFFFDb")
	}
	if data, _ := os.ReadFile(filepath.Join(dir, StdoutLog)); string(data) != "a\xffb\n" {
		t.Errorf("artifact: got %q, want the raw bytes", data)
	}
}

func TestInstructionOnStdin(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want string
	}{
		{"stdin", Spec{Argv: []string{"cat"}, UseStdin: true, Stdin: "fix it\n修好它"}, "fix it|修好它"},
		{"no stdin reads nothing", Spec{Argv: []string{"cat"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := start(t, context.Background(), tt.spec)
			recs := collect(t, p)
			if r := p.Wait(); !r.Success() {
				t.Errorf("result: got %+v", r)
			}
			if got := join(lines(recs, transcript.Stdout)); got != tt.want {
				t.Errorf("stdout: got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEnvAndDir(t *testing.T) {
	dir := t.TempDir()
	spec := shSpec(`pwd; echo "$DAOKIT_TEST_VALUE"; echo "$LC_ALL$LC_CTYPE"`)
	spec.Dir = dir
	spec.Env = []string{"DAOKIT_TEST_VALUE=one", "DAOKIT_TEST_VALUE=two", "LC_ALL=", "LC_CTYPE=", "LANG=C"}
	p := start(t, context.Background(), spec)
	recs := collect(t, p)
	p.Wait()
	real, _ := filepath.EvalSymlinks(dir)
	if got, want := join(lines(recs, transcript.Stdout)), real+"|two|C.UTF-8"; got != want {
		t.Errorf("stdout: got %q, want %q", got, want)
	}
}

func TestProtocolLinesAreDecoded(t *testing.T) {
	spec := helperSpec(t, "sim", &SimOptions{Instruction: "add a flag", Lines: 8})
	p := start(t, context.Background(), spec)
	recs := collect(t, p)
	r := p.Wait()
	if !r.Success() {
		t.Fatalf("result: %+v", r)
	}
	s := r.Summary
	if !strings.HasPrefix(s.SessionID, "sim-") || s.Result == nil || s.Result.Failed || !strings.Contains(s.Result.Text, "add a flag") {
		t.Errorf("summary: got %+v, want a sim session and a successful result", s)
	}
	var types []transcript.EventType
	for _, rec := range recs {
		for _, ev := range rec.Events {
			types = append(types, ev.Type)
		}
	}
	if len(types) < 4 || types[0] != transcript.EventSession || types[1] != transcript.EventHeartbeat || types[len(types)-1] != transcript.EventResult {
		t.Errorf("event types: got %v, want session, heartbeat, …, result", types)
	}
	if r.Stats.Events != int64(len(types)) || r.Stats.Malformed != 0 || r.Stats.Unknown != 0 {
		t.Errorf("stats: got %+v, want %d events and nothing malformed", r.Stats, len(types))
	}
}

func TestCrashLeavesAMalformedLastLine(t *testing.T) {
	p := start(t, context.Background(), helperSpec(t, "sim", &SimOptions{Instruction: "x", Crash: true}))
	recs := collect(t, p)
	r := p.Wait()
	if r.ExitCode != SimCrashCode || r.Summary.Result != nil {
		t.Errorf("result: got code %d result %+v, want %d and no result", r.ExitCode, r.Summary.Result, SimCrashCode)
	}
	// stdout and stderr are two pipes: only within stdout is the order
	// known, and there the torn line comes last.
	var stdout []transcript.Record
	for _, rec := range recs {
		if rec.Stream == transcript.Stdout {
			stdout = append(stdout, rec)
		}
	}
	if len(stdout) == 0 || stdout[len(stdout)-1].Status != transcript.StatusMalformed || r.Stats.Malformed != 1 {
		t.Errorf("last stdout record: got %+v (malformed count %d), want the torn line, malformed", stdout, r.Stats.Malformed)
	}
}

func TestLastActivityMoves(t *testing.T) {
	p := start(t, context.Background(), helperSpec(t, "sim", &SimOptions{Instruction: "x", Lines: 4, Duration: 400 * time.Millisecond}))
	first := p.LastActivity()
	waitFor(t, p, func(r transcript.Record) bool {
		return len(r.Events) > 0 && r.Events[0].Type == transcript.EventProgress
	})
	if !p.LastActivity().After(first) {
		t.Errorf("LastActivity: got %v, want after the start %v", p.LastActivity(), first)
	}
	if p.Summary().SessionID == "" {
		t.Error("Summary: session id not yet known after the first progress line")
	}
	collect(t, p)
}

// TestAgentKindsThroughTheRunner replays recorded agent streams as if a
// CLI printed them, and checks what the runner keeps for the controller.
func TestAgentKindsThroughTheRunner(t *testing.T) {
	tests := []struct {
		kind, file, session string
		failed              bool
		malformed           int64
	}{
		{"claude", "claude-stream-json-success.jsonl", "9f0c2d3e-1b2a-4c5d-8e6f-7a8b9c0d1e2f", false, 0},
		{"claude", "claude-stream-json-error.jsonl", "1111aaaa-2222-bbbb-3333-cccc4444dddd", true, 4},
		{"codex", "codex-exec-json-success.jsonl", "0199a213-81c0-7800-8aa1-bbab2a035a53", false, 0},
		{"codex", "codex-exec-json-failed.jsonl", "0199b000-0000-7000-8000-000000000001", true, 3},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path, err := filepath.Abs(filepath.Join("transcript", "testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			p := start(t, context.Background(), Spec{Argv: []string{"cat", path}, Kind: tt.kind})
			collect(t, p)
			r := p.Wait()
			s := r.Summary
			if s.SessionID != tt.session || s.Result == nil || s.Result.Failed != tt.failed {
				t.Errorf("summary: got session %q result %+v, want %q with failed=%v", s.SessionID, s.Result, tt.session, tt.failed)
			}
			if r.Stats.Malformed != tt.malformed {
				t.Errorf("malformed lines: got %d, want %d", r.Stats.Malformed, tt.malformed)
			}
		})
	}
}
