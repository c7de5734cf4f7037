package lead

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/pick"
	"github.com/daokit/daokit/team"
)

// TestMain lets the test binary play the processes a Lead deals with:
// "simworker N" is the simulated Worker, "traceworker TRACE N" a Worker
// that notes its start and end in TRACE (for the Worker drill), "guard --ro P… -- argv" the
// guard, and "lead DIR ROLE" a whole Lead process (for the SIGKILL drill).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "simworker":
			os.Exit(RunSimWorker(context.Background(), os.Args[2], os.Stdin, os.Stdout))
		case "guard":
			os.Exit(runGuardProcess(os.Args[2:]))
		case "attack":
			os.Exit(runAttacker(os.Args[2]))
		case "attack-nested":
			os.Exit(runNested(os.Args[2]))
		case "attacklead":
			alias := ""
			if len(os.Args) > 6 {
				alias = os.Args[6]
			}
			os.Exit(runAttackLead(os.Args[2], os.Args[3], os.Args[4], os.Args[5], alias))
		case "lead":
			os.Exit(runLeadProcess(os.Args[2], os.Args[3]))
		case "loopcoder", "loopreviewer", "loopjudge":
			os.Exit(runLoopAgent(os.Args[1], os.Args[2]))
		case "traceworker":
			os.Exit(runTraceWorker(os.Args[2], os.Args[3]))
		case "envworker":
			// The simulated Worker, after writing down its environment.
			if err := os.WriteFile(os.Args[2]+"-"+os.Args[3], []byte(strings.Join(os.Environ(), "\n")), 0o644); err != nil {
				os.Exit(1)
			}
			os.Exit(RunSimWorker(context.Background(), os.Args[3], os.Stdin, os.Stdout))
		case "briefworker":
			// A Worker that keeps the brief it was given.
			data, _ := io.ReadAll(os.Stdin)
			if err := os.WriteFile(os.Args[2], data, 0o644); err != nil {
				os.Exit(1)
			}
			os.Exit(0)
		}
	}
	os.Exit(m.Run())
}

// runGuardProcess is "daokit lead guard" as the test binary plays it:
// "--ro P", "--hide D" and "--probe" flags, then "--" and the command.
func runGuardProcess(args []string) int {
	var g GuardPaths
	for len(args) > 0 {
		switch {
		case args[0] == "--probe":
			if err := ProbeGuard(); err != nil {
				os.Stderr.WriteString(err.Error() + "\n")
				return exitGuardSetup
			}
			return 0
		case args[0] == "--ro" && len(args) > 1:
			g.ReadOnly, args = append(g.ReadOnly, args[1]), args[2:]
			continue
		case args[0] == "--hide" && len(args) > 1:
			g.Hidden, args = append(g.Hidden, args[1]), args[2:]
			continue
		case args[0] == "--":
			args = args[1:]
		}
		break
	}
	code, err := Guard(g, args, os.Environ())
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
	}
	return code
}

// runLeadProcess is a Lead as its own process, for the drills.
func runLeadProcess(dir, role string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	wf, err := team.Load(dir)
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 2
	}
	wake := WakeFor(20 * time.Second)
	ob, err := pick.Open(ctx, wf, pick.Token(wf, os.Getenv), outbox.Options{WakeInterval: wake})
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 2
	}
	defer ob.Close()
	l, err := New(ctx, Options{Role: role, Workflow: wf, HardCap: 2, Backend: ob, WorkerArgv: testWorkerArgv(), StatusDir: roster.StatusDir(wf), Beat: wake})
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 2
	}
	if err := l.Run(ctx); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	return 0
}

func testWorkerArgv() []string { return []string{os.Args[0], "simworker", PlaceholderIssue} }

// runTraceWorker is a Worker that appends "start N PID" to trace, works a
// moment (saying so), prints its evidence and appends "end N PID" as its
// last act: a run whose end is in the trace had finished.
func runTraceWorker(trace, issue string) int {
	note := func(what string) {
		f, err := os.OpenFile(trace, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			os.Exit(2)
		}
		fmt.Fprintf(f, "%s %s %d\n", what, issue, os.Getpid())
		f.Close()
	}
	note("start")
	io.Copy(io.Discard, os.Stdin)
	fmt.Printf("working on #%s\n", issue)
	work := time.NewTimer(time.Duration(5+rand.IntN(25)) * time.Millisecond)
	<-work.C
	fmt.Printf("IssueRef: #%s\nChanges: trace\nTests: traced\nState: done\n", issue)
	note("end")
	return 0
}
