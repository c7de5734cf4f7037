package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/worker/transcript"
)

// The test binary doubles as a worker: with helperEnv set it runs the
// named helper instead of the tests, so that runner tests start real
// children without building anything.
const (
	helperEnv     = "DAOKIT_WORKER_TEST_HELPER"
	helperOptsEnv = "DAOKIT_WORKER_TEST_SIM"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	os.Exit(m.Run())
}

func runHelper(mode string) int {
	switch mode {
	case "sim":
		var o SimOptions
		if err := json.Unmarshal([]byte(os.Getenv(helperOptsEnv)), &o); err != nil {
			fmt.Fprintln(os.Stderr, "helper: bad options:", err)
			return 2
		}
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		defer stop()
		return RunSim(ctx, o, os.Stdout, os.Stderr)
	case "ignore-term":
		// A worker that will not stop politely: only SIGKILL ends it.
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		time.Sleep(time.Hour)
		return 0
	}
	fmt.Fprintln(os.Stderr, "helper: unknown mode", mode)
	return 2
}

// helperSpec runs this test binary as helper mode.
func helperSpec(t *testing.T, mode string, o *SimOptions) Spec {
	t.Helper()
	env := []string{helperEnv + "=" + mode}
	if o != nil {
		data, err := jsonSim(*o)
		if err != nil {
			t.Fatal(err)
		}
		env = append(env, helperOptsEnv+"="+data)
	}
	return Spec{Argv: []string{os.Args[0]}, Env: env, Kind: "sim", StopGrace: DefaultStopGrace}
}

func jsonSim(o SimOptions) (string, error) {
	data, err := json.Marshal(o)
	return string(data), err
}

func shSpec(script string) Spec {
	return Spec{Argv: []string{"sh", "-c", script}, StopGrace: DefaultStopGrace}
}

// start starts spec and registers a cleanup that kills whatever is left,
// so that a failing test never leaves a child behind.
func start(t *testing.T, ctx context.Context, spec Spec) *Process {
	t.Helper()
	p, err := Start(ctx, spec)
	if err != nil {
		t.Fatalf("Start(%q): %v", spec.Argv, err)
	}
	t.Cleanup(func() {
		p.Stop(transcript.StopCancelled)
		p.Stop(transcript.StopCancelled)
		p.Discard()
		select {
		case <-p.Done():
		case <-time.After(10 * time.Second):
			t.Errorf("worker %d still running at cleanup", p.PID())
		}
	})
	return p
}

// collect reads every record until Records closes.
func collect(t *testing.T, p *Process) []transcript.Record {
	t.Helper()
	var recs []transcript.Record
	timeout := time.After(30 * time.Second)
	for {
		select {
		case r, ok := <-p.Records():
			if !ok {
				return recs
			}
			recs = append(recs, r)
		case <-timeout:
			t.Fatalf("records not closed after 30s; got %d so far", len(recs))
			return recs
		}
	}
}

// waitFor reads records until one satisfies ok.
func waitFor(t *testing.T, p *Process, ok func(transcript.Record) bool) transcript.Record {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case r, open := <-p.Records():
			if !open {
				t.Fatal("records closed before the expected line")
			}
			if ok(r) {
				return r
			}
		case <-timeout:
			t.Fatal("expected line did not come within 20s")
		}
	}
}

func textIs(s string) func(transcript.Record) bool {
	return func(r transcript.Record) bool { return r.Text == s }
}

// groupGone reports whether no process is left in process group pgid.
func groupGone(pgid int) bool {
	return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}

// liveMembers lists the processes of group pgid that have not exited,
// from /proc. Unlike kill(-pgid, 0) it does not count zombies, which
// are dead and only wait for init to reap them.
func liveMembers(t *testing.T, pgid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var live []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces and parens.
		rest := string(data[strings.LastIndexByte(string(data), ')')+1:])
		f := strings.Fields(rest)
		if len(f) >= 3 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			live = append(live, pid)
		}
	}
	return live
}

// assertGroupEnded checks that nothing of group pgid stays alive (a
// killed process can take a moment to finish exiting), and that the group
// disappears once init has reaped the dead.
func assertGroupEnded(t *testing.T, pgid int) {
	t.Helper()
	eventually(t, "no live member in the process group", func() bool { return len(liveMembers(t, pgid)) == 0 })
	eventually(t, "kill(-pgid, 0) reports ESRCH", func() bool { return groupGone(pgid) })
}

func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// assertReaped checks that the leader is not a zombie: it is no longer our
// child at all.
func assertReaped(t *testing.T, pid int) {
	t.Helper()
	var ws syscall.WaitStatus
	_, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	if !errors.Is(err, syscall.ECHILD) {
		t.Errorf("wait4(%d): got %v, want ECHILD (reaped)", pid, err)
	}
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s", what)
		}
		<-tick.C
	}
}

// checkGoroutines fails the test if goroutines started during it are
// still running at its end.
func checkGoroutines(t *testing.T) {
	t.Helper()
	base := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(10 * time.Second)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for runtime.NumGoroutine() > base {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				n := runtime.Stack(buf, true)
				t.Errorf("goroutines: got %d, want at most %d\n%s", runtime.NumGoroutine(), base, buf[:n])
				return
			}
			<-tick.C
		}
	})
}

func lines(recs []transcript.Record, stream transcript.Stream) []string {
	var out []string
	for _, r := range recs {
		if r.Stream == stream && r.Status != transcript.StatusGap {
			out = append(out, r.Text)
		}
	}
	return out
}

func join(lines []string) string { return strings.Join(lines, "|") }
