package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// printingProc is a long-running daokit child of a test that says on its
// standard output when it is ready (a hub its address, a dashboard its
// URL, a mirror that it resumed).
type printingProc struct {
	cmd *exec.Cmd
	// done is closed once stdout ended and the process was reaped.
	done chan struct{}
	// out is all of stdout; read it only after done is closed.
	out strings.Builder
}

// startPrinting starts cmd (stderr goes to the test's) and returns once
// ready accepted a line of its stdout; ready is not called again after
// that, so what it stores is the caller's to read. It fails the test when
// cmd exits or stays silent for 20 s first; the cleanup kills it.
func startPrinting(t testing.TB, cmd *exec.Cmd, what string, ready func(line string) bool) *printingProc {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &printingProc{cmd: cmd, done: make(chan struct{})}
	isReady := make(chan struct{})
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stdout)
		waiting := true
		for sc.Scan() {
			line := sc.Text()
			p.out.WriteString(line + "\n")
			if waiting && ready(line) {
				waiting = false
				close(isReady)
			}
		}
		_ = cmd.Wait()
	}()
	t.Cleanup(p.kill)
	select {
	case <-isReady:
	case <-p.done:
		t.Fatalf("%s exited before it was ready:\n%s", what, p.out.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("%s was not ready within 20s", what)
	}
	return p
}

// kill SIGKILLs the process and waits until it is reaped.
func (p *printingProc) kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}
