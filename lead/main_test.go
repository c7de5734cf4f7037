package lead

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/team"
)

// TestMain lets the test binary play the processes a Lead deals with:
// "simworker N" is the simulated Worker, "guard --ro P… -- argv" the
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
				return ExitGuardSetup
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
	ob, err := outbox.OpenSQLite(wf.DBPath(), outbox.Options{WakeInterval: WakeFor(20 * time.Second)})
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 2
	}
	defer ob.Close()
	l, err := New(ctx, Options{Role: role, Workflow: wf, HardCap: 2, Backend: ob, WorkerArgv: testWorkerArgv(), StatusDir: StatusDir(wf)})
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
