package e2e

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"golang.org/x/sys/unix"
)

// pythonSrcEnv names a checkout of the Python DAOKit (as bench/run.sh
// uses it). When set, the co-writing tests run its real CLI; otherwise
// they write what it writes from the ledgers it wrote for the interop
// tests (cmd/daokit/testdata/python).
const pythonSrcEnv = "DAOKIT_PY_SRC"

// TestCrashLeftJournalBesidePythonLosesNothing is issue 29's scenario
// with the real binary: `daokit takeover` SIGKILLed after its commit
// point leaves state/commit.journal; the Python tool then takes over and
// runs on the root; the next daokit write must not replay the journal
// over that: every event line stays, the pipeline stays where the Python
// run left it, every Python lease record stays, and a warning event
// says that the journal was discarded.
func TestCrashLeftJournalBesidePythonLosesNothing(t *testing.T) {
	t.Parallel()
	root := journalLeftByKilledTakeover(t)
	before := readState(t, root, ledger.EventsFile)
	if py := os.Getenv(pythonSrcEnv); py != "" {
		runPython(t, py, "takeover", "--root", root, "--successor-thread-id", "py-succ", "--successor-pid", "4243")
		runPython(t, py, "run", "--root", root, "--task-id", "DKT-300", "--run-id", "RUN-A", "--goal", "Interrupted goal")
	} else {
		t.Logf("%s not set: writing the Python tool's recorded files as it writes them", pythonSrcEnv)
		pythonFixture := filepath.Join("..", "cmd", "daokit", "testdata", "python")
		for _, name := range []string{ledger.PipelineFile, ledger.LeasesFile} {
			// The Python tool truncates and rewrites a document in place.
			if err := os.WriteFile(filepath.Join(root, ledger.StateDir, name), readFixture(t, pythonFixture, "done", name), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		f, err := os.OpenFile(filepath.Join(root, ledger.StateDir, ledger.EventsFile), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, src := range []string{"taken-over", "done"} {
			if _, err := f.Write(readFixture(t, pythonFixture, src, ledger.EventsFile)); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	python := readState(t, root, ledger.EventsFile)
	if !bytes.HasPrefix(python, before) || bytes.Count(python, []byte{'\n'}) < bytes.Count(before, []byte{'\n'})+18 {
		t.Fatalf("the Python takeover and run wrote %d event lines after %d", bytes.Count(python, []byte{'\n'}), bytes.Count(before, []byte{'\n'}))
	}
	pyPipeline := readState(t, root, ledger.PipelineFile)
	pyStatus := pipelineStatus(t, pyPipeline)
	pyTokens := leaseTokens(t, readState(t, root, ledger.LeasesFile))

	// The next daokit write.
	out, err := exec.Command(daokit, "handoff", "--root", root, "--create").CombinedOutput()
	if err != nil {
		t.Fatalf("daokit handoff --create: %v\n%s", err, out)
	}

	after := readState(t, root, ledger.EventsFile)
	if !bytes.HasPrefix(after, python) {
		t.Fatalf("events lost: %d lines before the daokit write, and the log no longer starts with them:\n%s",
			bytes.Count(python, []byte{'\n'}), after)
	}
	added := strings.Split(strings.TrimSpace(string(after[len(python):])), "\n")
	if len(added) != 1 || !strings.Contains(added[0], `"operation":"`+ledger.OpCommitDiscarded+`"`) ||
		!strings.Contains(added[0], `"event_type":"SYSTEM"`) || !strings.Contains(added[0], `"severity":"WARN"`) {
		t.Errorf("lines the daokit write added: %q, want one discard warning", added)
	}
	if got := readState(t, root, ledger.PipelineFile); !bytes.Equal(got, pyPipeline) || pipelineStatus(t, got) == ledger.StatusPlanning {
		t.Errorf("pipeline rolled back from %s:\n%s", pyStatus, got)
	}
	for _, tok := range pyTokens {
		if !bytes.Contains(readState(t, root, ledger.LeasesFile), []byte(tok)) {
			t.Errorf("Python lease %s erased", tok)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ledger.StateDir, ledger.JournalFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal still there: %v", err)
	}
}

// journalLeftByKilledTakeover runs `daokit takeover` on a copy of the
// Python tool's interrupted ledger and freezes it (SIGSTOP) the moment
// its journal is renamed into place, then SIGKILLs it: a takeover killed
// after its commit point. A takeover that got as far as removing its
// journal before the stop is run again on a fresh copy.
func journalLeftByKilledTakeover(t *testing.T) string {
	t.Helper()
	for attempt := range 50 {
		root := copyTree(t, filepath.Join("..", "cmd", "daokit", "testdata", "python", "interrupted"))
		state := filepath.Join(root, ledger.StateDir)
		fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := unix.InotifyAddWatch(fd, state, unix.IN_MOVED_TO); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(daokit, "takeover", "--root", root, "--successor-thread-id", "succ", "--successor-pid", "4242")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		stopped := waitForName(t, fd, ledger.JournalFile, exited, 30*time.Second, func() { _ = cmd.Process.Signal(unix.SIGSTOP) })
		_ = unix.Close(fd)
		_ = cmd.Process.Kill()
		<-exited
		if _, err := os.Stat(filepath.Join(state, ledger.JournalFile)); stopped && err == nil {
			t.Logf("journal left by the killed takeover on attempt %d", attempt+1)
			return root
		}
	}
	t.Fatal("no takeover was stopped between its commit point and its end in 50 attempts")
	return ""
}

// waitForName polls the inotify descriptor fd until a rename into the
// watched folder is named name, then calls hit at once. It returns false
// if exited closes or the deadline passes first.
func waitForName(t *testing.T, fd int, name string, exited <-chan struct{}, limit time.Duration, hit func()) bool {
	t.Helper()
	deadline := time.Now().Add(limit)
	buf := make([]byte, 64<<10)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return false
		default:
		}
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if _, err := unix.Poll(pfd, 50); err != nil && !errors.Is(err, unix.EINTR) {
			t.Fatal(err)
		}
		n, err := unix.Read(fd, buf)
		if errors.Is(err, unix.EAGAIN) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			// struct inotify_event: wd, mask, cookie, len, then the name.
			length := int(binary.NativeEndian.Uint32(buf[off+12:]))
			nameBytes := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+length]
			if string(bytes.TrimRight(nameBytes, "\x00")) == name {
				hit()
				return true
			}
			off += unix.SizeofInotifyEvent + length
		}
	}
	return false
}

// runPython runs the Python DAOKit's CLI from the checkout at src.
func runPython(t *testing.T, src string, args ...string) {
	t.Helper()
	runPythonCode(t, src, 0, args...)
}

// pythonCmd is the Python DAOKit's CLI (daokit-cli) from the checkout at
// src.
func pythonCmd(src string, args ...string) *exec.Cmd {
	cmd := exec.Command("python3", append([]string{"-m", "cli"}, args...)...)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join(src, "src"))
	cmd.Dir = src
	return cmd
}

func readFixture(t *testing.T, dir, ledgerName, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, ledgerName, ledger.StateDir, file))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func readState(t *testing.T, root, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, ledger.StateDir, file))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func pipelineStatus(t *testing.T, data []byte) string {
	t.Helper()
	var p struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	return p.Status
}

func leaseTokens(t *testing.T, data []byte) []string {
	t.Helper()
	var l struct {
		Leases []struct {
			Token string `json:"lease_token"`
		} `json:"leases"`
	}
	if err := json.Unmarshal(data, &l); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, x := range l.Leases {
		out = append(out, x.Token)
	}
	return out
}
