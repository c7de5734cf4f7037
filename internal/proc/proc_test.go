package proc

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// deadline bounds every wait of these tests; nothing here should take
// more than a fraction of it.
const deadline = 20 * time.Second

// alive reports whether pid runs (a zombie has ended).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || !bytes.HasPrefix(b[i+1:], []byte(" Z"))
}

// waitGone fails the test unless every pid is gone before the deadline.
func waitGone(t *testing.T, pids ...int) {
	t.Helper()
	end := time.Now().Add(deadline)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(end) {
				st, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
				t.Fatalf("pid %d still runs (marker %q, stat %s)", pid, markerOf(pid), st)
			}
			waitABit()
		}
	}
}

// waitABit yields for a poll's interval without sleeping on a clock the
// test asserts: it blocks on a timer channel between two checks.
func waitABit() { <-time.After(5 * time.Millisecond) }

// pidFrom waits for a script to write a pid into file.
func pidFrom(t *testing.T, file string) int {
	t.Helper()
	end := time.Now().Add(deadline)
	for {
		b, err := os.ReadFile(file)
		if err == nil && bytes.HasSuffix(b, []byte("\n")) {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatalf("%s: %q", file, b)
			}
			return pid
		}
		if time.Now().After(end) {
			t.Fatalf("no pid in %s", file)
		}
		waitABit()
	}
}

// killOnCleanup kills pid when the test ends, should it have failed to.
func killOnCleanup(t *testing.T, pid int) {
	t.Cleanup(func() {
		if alive(pid) {
			_ = exec.Command("kill", "-9", strconv.Itoa(pid)).Run()
		}
	})
}

// modes runs f with cgroups (when this machine offers them) and with the
// subreaper and marker sweep instead.
func modes(t *testing.T, f func(t *testing.T)) {
	if cgroupBase() != "" {
		t.Run("cgroup", f)
	} else {
		t.Log("no writable cgroup v2 here: only the subreaper mode runs")
	}
	t.Run("subreaper", func(t *testing.T) {
		was := cgroups.off.Swap(true)
		t.Cleanup(func() { cgroups.off.Store(was) })
		becomeSubreaper()
		if !subreaper.Load() {
			t.Skip("cannot become a child subreaper")
		}
		f(t)
	})
}

// A command that exits leaving a child in a session of its own that
// holds stdout: Run returns, and the child is dead.
func TestRunKillsWhatTheCommandLeftHoldingItsOutput(t *testing.T) {
	modes(t, func(t *testing.T) {
		dir := t.TempDir()
		pidFile := filepath.Join(dir, "pid")
		cmd := exec.Command("sh", "-c", `setsid sh -c 'echo $$ > "$0"; exec sleep 600' "$1" & echo started; `+
			`while [ ! -s "$1" ]; do :; done`, "sh", pidFile)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		s := NewScope(dir)
		t.Cleanup(s.Close)
		o := Run(WithScope(context.Background(), s), cmd, 0)
		if !o.Started || o.TimedOut || o.Cancelled {
			t.Fatalf("outcome %+v", o)
		}
		grandchild := pidFrom(t, pidFile)
		killOnCleanup(t, grandchild)
		waitGone(t, grandchild)
		if !strings.Contains(out.String(), "started") {
			t.Errorf("output %q", out.String())
		}
	})
}

// A command that ignores SIGTERM, with a setsid grandchild, outlives its
// timeout: the timeout kills the whole tree.
func TestRunTimeoutKillsTheWholeTree(t *testing.T) {
	modes(t, func(t *testing.T) {
		dir := t.TempDir()
		pidFile := filepath.Join(dir, "pid")
		cmd := exec.Command("sh", "-c", `trap '' TERM; setsid sh -c 'echo $$ > "$0"; exec sleep 600' "$1" & `+
			`while [ ! -s "$1" ]; do :; done; echo $$ >> "$1.leader"; sleep 600`, "sh", pidFile)
		var out bytes.Buffer
		cmd.Stdout = &out
		o := Run(context.Background(), cmd, time.Second)
		if !o.TimedOut || o.Err == nil {
			t.Fatalf("outcome %+v, want a timeout", o)
		}
		waitGone(t, pidFrom(t, pidFile), pidFrom(t, pidFile+".leader"))
	})
}

// Cancelling the context kills the tree the same way.
func TestRunCancelKillsTheWholeTree(t *testing.T) {
	modes(t, func(t *testing.T) {
		dir := t.TempDir()
		pidFile := filepath.Join(dir, "pid")
		ctx, cancel := context.WithCancel(context.Background())
		cmd := exec.Command("sh", "-c", `setsid sh -c 'echo $$ > "$0"; exec sleep 600' "$1" & sleep 600`, "sh", pidFile)
		done := make(chan Outcome, 1)
		go func() { done <- Run(ctx, cmd, 0) }()
		grandchild := pidFrom(t, pidFile)
		killOnCleanup(t, grandchild)
		cancel()
		o := <-done
		if !o.Cancelled {
			t.Fatalf("outcome %+v, want cancelled", o)
		}
		waitGone(t, grandchild)
	})
}

// The step's environment and the marker reach the child and its
// descendants.
func TestStartPassesStepEnvironmentAndMarker(t *testing.T) {
	dir := t.TempDir()
	s := NewScope(dir)
	t.Cleanup(s.Close)
	ctx := WithStep(WithScope(context.Background(), s), "iter-1/coder", "DAOKIT_STEP_ID=iter-1.coder")
	cmd := exec.Command("sh", "-c", `sh -c 'echo "$DAOKIT_STEP_ID $DAOKIT_PROC"'`)
	var out bytes.Buffer
	cmd.Stdout = &out
	if o := Run(ctx, cmd, 0); o.Err != nil {
		t.Fatal(o.Err)
	}
	got := strings.Fields(out.String())
	if len(got) != 2 || got[0] != "iter-1.coder" || !strings.HasPrefix(got[1], s.ID()+"/iter-1_coder/"+strconv.Itoa(os.Getpid())+"-") {
		t.Errorf("child saw %q", out.String())
	}
}

// A Tree's Kill reaches a descendant in a session of its own while the
// leader still runs (a /cancel of a worker).
func TestTreeKillReachesASetsidDescendant(t *testing.T) {
	modes(t, func(t *testing.T) {
		dir := t.TempDir()
		pidFile := filepath.Join(dir, "pid")
		cmd := exec.Command("sh", "-c", `sh -c 'setsid sh -c "echo \$\$ > \"\$0\"; exec sleep 600" "$0" & wait' "$1"; sleep 600`, "sh", pidFile)
		tr, err := Start(context.Background(), cmd)
		if err != nil {
			t.Fatal(err)
		}
		grandchild := pidFrom(t, pidFile)
		killOnCleanup(t, grandchild)
		tr.Kill()
		_ = cmd.Wait()
		tr.Release()
		waitGone(t, grandchild)
	})
}

// A successor's Sweep kills what a dead predecessor of the same root
// left, in sessions of their own, and spares its own trees and other
// roots' processes.
func TestSweepKillsAPredecessorsLeftovers(t *testing.T) {
	dir := t.TempDir()
	s := NewScope(dir)
	t.Cleanup(s.Close)
	pidFile := filepath.Join(dir, "pid")
	// The predecessor's child: its marker names another process's token.
	old := exec.Command("sh", "-c", `setsid sh -c 'echo $$ > "$0"; exec sleep 600' "$1" &`, "sh", pidFile)
	old.Env = append(os.Environ(), EnvMarker+"="+s.ID()+"/iter-1.coder/1-1")
	if err := old.Run(); err != nil {
		t.Fatal(err)
	}
	orphan := pidFrom(t, pidFile)
	killOnCleanup(t, orphan)
	otherFile := filepath.Join(dir, "other")
	other := exec.Command("sh", "-c", `setsid sh -c 'echo $$ > "$0"; exec sleep 600' "$1" &`, "sh", otherFile)
	other.Env = append(os.Environ(), EnvMarker+"="+NewScope(dir+"x").ID()+"/s/1-1")
	if err := other.Run(); err != nil {
		t.Fatal(err)
	}
	bystander := pidFrom(t, otherFile)
	killOnCleanup(t, bystander)
	ownCmd := exec.Command("sleep", "600")
	own, err := Start(WithScope(context.Background(), s), ownCmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { own.Kill(); _ = ownCmd.Wait(); own.Release() })

	if n := s.Sweep(); n < 1 {
		t.Errorf("Sweep killed %d, want the orphan", n)
	}
	waitGone(t, orphan)
	if !alive(bystander) {
		t.Error("another root's process was killed")
	}
	if !alive(own.PID()) {
		t.Error("the sweeping process's own tree was killed")
	}
}

// A process started with a marker (a Lead the controller started)
// starts its own children in the same scope, so that a successor of that
// controller sweeps them; without one its scope is its own.
func TestInheritedScope(t *testing.T) {
	if got := inheritedScope("0123abcd/lead-coder/77-1").ID(); got != "0123abcd" {
		t.Errorf("scope of an inherited marker: %q", got)
	}
	for _, m := range []string{"", "no-slash", "../x/1-1"} {
		if got := inheritedScope(m).ID(); got != "p"+strconv.Itoa(os.Getpid()) {
			t.Errorf("scope of marker %q: %q, want the process's own", m, got)
		}
	}
}

// Trees one after the other reuse one emptied cgroup; Close removes it
// and the scope's folder. A starting controller removes the empty
// cgroups a dead process left in another scope.
func TestCgroupsAreReusedAndRemoved(t *testing.T) {
	base := cgroupBase()
	if base == "" {
		t.Skip("no writable cgroup v2 here")
	}
	s := NewScope(t.TempDir())
	ctx := WithScope(context.Background(), s)
	for range 3 {
		if o := Run(ctx, exec.Command("true"), 0); o.Err != nil {
			t.Fatal(o.Err)
		}
	}
	dir := scopeDir(base, s)
	kids, _ := os.ReadDir(dir)
	n := 0
	for _, k := range kids {
		if k.IsDir() {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d cgroups after three trees one after the other, want one kept", n)
	}
	s.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the scope's folder outlived Close: %v", err)
	}

	dead := NewScope(t.TempDir())
	litter := filepath.Join(scopeDir(base, dead), "I1-coder.999999999-1")
	if err := os.MkdirAll(litter, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeCgroup(litter); _ = os.Remove(filepath.Dir(litter)) })
	NewScope(t.TempDir()).Sweep()
	if _, err := os.Stat(filepath.Dir(litter)); !os.IsNotExist(err) {
		t.Errorf("a dead process's empty cgroup was left: %v", err)
	}
}

// A tree that had to be killed (its cgroup killed) does not poison the
// next one: a killed cgroup is not reused.
func TestATreeAfterAKilledOneRuns(t *testing.T) {
	s := NewScope(t.TempDir())
	t.Cleanup(s.Close)
	ctx := WithScope(context.Background(), s)
	for i := range 3 {
		o := Run(ctx, exec.Command("sh", "-c", `setsid sh -c 'exec sleep 600' & sleep 600`), 50*time.Millisecond)
		if !o.TimedOut {
			t.Fatalf("round %d: %+v, want a timeout", i, o)
		}
		if o := Run(ctx, exec.Command("sh", "-c", "exit 0"), 0); o.Err != nil {
			t.Fatalf("round %d: the tree after a killed one: %v", i, o.Err)
		}
	}
}

// A command that cannot start (a file that is not executable) fails
// alone: the runtime keeps putting children into cgroups.
func TestACommandThatCannotStartKeepsCgroups(t *testing.T) {
	had := cgroupBase() != ""
	script := filepath.Join(t.TempDir(), "not-executable")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if o := Run(context.Background(), exec.Command(script), 0); o.Started || o.Err == nil {
		t.Fatalf("outcome %+v, want a start error", o)
	}
	if had && cgroupBase() == "" {
		t.Error("a command's own start error turned cgroups off")
	}
}
