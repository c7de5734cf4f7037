package lead

import (
	"context"
	"io"
	"os"
	"os/signal"
	"strings"
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
			var ro []string
			args := os.Args[2:]
			for len(args) > 1 && args[0] == "--ro" {
				ro, args = append(ro, args[1]), args[2:]
			}
			if len(args) > 0 && args[0] == "--" {
				args = args[1:]
			}
			err := Guard(ro, args, os.Environ())
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(3)
		case "lead":
			os.Exit(runLeadProcess(os.Args[2], os.Args[3]))
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

// runLeadProcess is a Lead as its own process, for the drills.
func runLeadProcess(dir, role string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	wf, err := team.Load(dir)
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 2
	}
	ob, err := OpenOutbox(ctx, wf, outbox.TokenFromEnv(), outbox.Options{WakeInterval: WakeFor(20 * time.Second)})
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
