package ledger

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// Helper processes: the test binary re-executes itself with
// DAOKIT_LEDGER_HELPER set to run one of these modes instead of tests.
const (
	helperEnv     = "DAOKIT_LEDGER_HELPER"
	helperRootEnv = "DAOKIT_LEDGER_ROOT"
	helperSeqEnv  = "DAOKIT_LEDGER_SEQ"
	helperTornEnv = "DAOKIT_LEDGER_TORN"
)

// TestLedgerHelperProcess is not a test: it is the body of the helper
// processes started by the crash and lock tests.
func TestLedgerHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper process only")
	}
	root := os.Getenv(helperRootEnv)
	var err error
	switch mode {
	case "crash":
		err = helperCrash(root)
	case "hold":
		err = helperHold(root)
	default:
		err = fmt.Errorf("unknown helper mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(3)
	}
	os.Exit(0)
}

// helperHold takes the lock, says "L" and holds it until stdin closes.
func helperHold(root string) error {
	s, err := Open(root, Options{})
	if err != nil {
		return err
	}
	fmt.Println("L")
	_, _ = io.Copy(io.Discard, os.Stdin)
	return s.Close()
}

// helperCrash appends events and replaces the documents until it is
// killed, acknowledging each event on stdout ("A <seq>") only after
// AppendEvent returned. With DAOKIT_LEDGER_TORN set it writes half an
// event line behind the store's back after a few appends, says "T" and
// waits to be killed, which leaves a torn tail for the next Open.
func helperCrash(root string) error {
	seq, err := strconv.Atoi(os.Getenv(helperSeqEnv))
	if err != nil {
		return err
	}
	torn := os.Getenv(helperTornEnv) != ""
	s, err := Open(root, Options{})
	if err != nil {
		return err
	}
	out := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		if torn && i == 5 {
			return helperTear(root, seq+i, out)
		}
		if err := helperReplace(s, i); err != nil {
			return err
		}
		if i%7 == 6 {
			batch := []Event{testEvent(seq + i), testEvent(seq + i + 1), testEvent(seq + i + 2)}
			if err := s.AppendEvents(batch); err != nil {
				return err
			}
			fmt.Fprintf(out, "A %d\nA %d\nA %d\n", seq+i, seq+i+1, seq+i+2)
			i += 2
		} else {
			if err := s.AppendEvent(testEvent(seq + i)); err != nil {
				return err
			}
			fmt.Fprintf(out, "A %d\n", seq+i)
		}
		if err := out.Flush(); err != nil {
			return err
		}
	}
}

func helperReplace(s *Store, i int) error {
	var err error
	switch i % 3 {
	case 0:
		p := NewPipelineState(time.Now())
		p.TaskID, p.RunID, p.Goal, p.Status = "DKT-1", "RUN-1", "round "+strconv.Itoa(i), StatusExecute
		_, err = s.WritePipeline(p)
	case 1:
		h := NewHeartbeatStatus(time.Now())
		h.Status, h.LastHeartbeatAt = HeartbeatRunning, FormatTime(time.Now())
		h.WarningAfterSeconds, h.StaleAfterSeconds = 900, 1200+i
		_, err = s.WriteHeartbeat(h)
	case 2:
		l := NewLeases(time.Now())
		for range 1 + i%4 {
			l.Leases = append(l.Leases, validLease())
		}
		_, err = s.WriteLeases(l)
	}
	return err
}

func helperTear(root string, seq int, out *bufio.Writer) error {
	line, err := MarshalLine(testEvent(seq))
	if err != nil {
		return err
	}
	f, err := os.OpenFile(statePath(root, EventsFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	cut := len(line) / 2
	if (seq/100000)%8 == 3 {
		cut = len(line) - 1 // a complete object without its newline
	}
	if _, err := f.Write(line[:cut]); err != nil {
		return err
	}
	fmt.Fprintln(out, "T")
	if err := out.Flush(); err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	return nil
}

// helper is a running helper process.
type helper struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
}

func startHelper(t *testing.T, mode, root string, env ...string) *helper {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLedgerHelperProcess$")
	cmd.Env = append(os.Environ(), append([]string{helperEnv + "=" + mode, helperRootEnv + "=" + root}, env...)...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start helper: %v", err)
	}
	h := &helper{cmd: cmd, stdin: stdin, lines: make(chan string, 1024)}
	go func() {
		defer close(h.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			h.lines <- sc.Text()
		}
	}()
	return h
}

// wait reads lines until one equals want; false if the helper ended.
func (h *helper) waitLine(want string, onLine func(string)) bool {
	for line := range h.lines {
		onLine(line)
		if line == want {
			return true
		}
	}
	return false
}

// kill sends SIGKILL, collects the remaining output and reaps the child.
// It returns an error if the child had already failed on its own.
func (h *helper) kill(onLine func(string)) error {
	_ = h.cmd.Process.Kill()
	for line := range h.lines {
		onLine(line)
	}
	err := h.cmd.Wait()
	_ = h.stdin.Close()
	var exit *exec.ExitError
	if errors.As(err, &exit) && !exit.Exited() {
		return nil // killed by our signal, as intended
	}
	if err != nil {
		return fmt.Errorf("helper failed: %w", err)
	}
	return nil
}

func TestTwoProcessesRaceForTheLock(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	h := startHelper(t, "hold", root)
	if !h.waitLine("L", func(string) {}) {
		t.Fatal("helper ended before taking the lock")
	}
	err := openRefused(t, root)
	var le *LockedError
	if !errors.As(err, &le) {
		t.Fatalf("Open while another process holds the lock = %v, want *LockedError", err)
	}
	if le.HolderPID != h.cmd.Process.Pid {
		t.Errorf("HolderPID = %d, want %d", le.HolderPID, h.cmd.Process.Pid)
	}
	_ = h.stdin.Close()
	for range h.lines {
	}
	if err := h.cmd.Wait(); err != nil {
		t.Fatalf("helper: %v", err)
	}
	s, err := Open(root, Options{})
	if err != nil {
		t.Fatalf("Open after the holder exited: %v", err)
	}
	_ = s.Close()
}

func TestOpenRaceManyGoroutines(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	const n = 8
	type result struct {
		s   *Store
		err error
	}
	results := make(chan result, n)
	start := make(chan struct{})
	for range n {
		go func() {
			<-start
			s, err := Open(root, Options{})
			results <- result{s, err}
		}()
	}
	close(start)
	var winners int
	for range n {
		r := <-results
		switch {
		case r.err == nil:
			winners++
			defer r.s.Close()
		case !errors.Is(r.err, ErrLocked):
			t.Errorf("Open = %v, want nil or ErrLocked", r.err)
		}
	}
	if winners != 1 {
		t.Errorf("%d Opens won the lock, want exactly 1", winners)
	}
}
