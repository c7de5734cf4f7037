package lead

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/daokit/daokit/outbox"
)

// simDirective is the line prefix by which an issue steers the simulated
// role worker: "Sim: sleep 300ms" (working, saying so every
// simProgress), "Sim: hang 10m" (silent, as a hung Worker),
// "Sim: fail", "Sim: blocked #3",
// "Sim: breaking <what>", "Sim: pwd" (report the working folder),
// "Sim: write <path>" (try to write a file),
// "Sim: outbox <db>" (try to comment through the outbox).
const simDirective = "Sim:"

// RunSimWorker is the simulated Worker of a role: it reads the issue from
// in, "works", and prints its evidence (IssueRef, Changes, Tests and, when
// told, BlockedBy or Breaking) one field a line, as a real Worker's
// wrapper would, then its result line (State: done or failed). It
// returns the exit code.
func RunSimWorker(ctx context.Context, issue string, in io.Reader, out io.Writer) int {
	data, _ := io.ReadAll(io.LimitReader(in, 1<<20))
	text := string(data)
	title, _, _ := strings.Cut(text, "\n")
	sum := sha256.Sum256(data)
	fields := map[string]string{
		outbox.FieldIssueRef: "#" + issue,
		outbox.FieldChanges:  "commit sim-" + hex.EncodeToString(sum[:4]),
		outbox.FieldTests:    "sim tests: 3 passed",
	}
	fmt.Fprintf(out, "working on #%s: %s\n", issue, strings.TrimSpace(title))
	code := 0
	for _, line := range strings.Split(text, "\n") {
		d, ok := strings.CutPrefix(strings.TrimSpace(line), simDirective)
		if !ok {
			continue
		}
		verb, arg, _ := strings.Cut(strings.TrimSpace(d), " ")
		arg = strings.TrimSpace(arg)
		switch verb {
		case "sleep", "hang":
			if dur, err := time.ParseDuration(arg); err == nil {
				if !simWait(ctx, dur, verb == "sleep", out) {
					return 130
				}
			}
		case "fail":
			fields[outbox.FieldTests] = "sim tests: 1 failed"
			code = 1
		case "blocked":
			fields[outbox.FieldBlockedBy] = arg
		case "breaking":
			fields[outbox.FieldBreaking] = arg
		case "write":
			err := os.WriteFile(arg, []byte("written by a worker\n"), 0o644)
			fields[outbox.FieldTests] = fmt.Sprintf("write %s: %s", arg, refusal(err))
		case "pwd":
			dir, err := os.Getwd()
			if err != nil {
				dir = err.Error()
			}
			fields[outbox.FieldTests] = "cwd " + dir
		case "outbox":
			fields[outbox.FieldTests] = "outbox write: " + refusal(tryOutbox(ctx, arg))
		}
	}
	for _, k := range []string{outbox.FieldIssueRef, outbox.FieldChanges, outbox.FieldTests, outbox.FieldBlockedBy, outbox.FieldBreaking} {
		if v := fields[k]; v != "" {
			fmt.Fprintf(out, "%s: %s\n", k, v)
		}
	}
	// The result line, last: with it in its log, the Worker's result
	// stands even if its exit status dies with its Lead.
	state := "done"
	if code != 0 {
		state = "failed"
	}
	fmt.Fprintf(out, "%s: %s\n", outbox.FieldState, state)
	return code
}

func refusal(err error) string {
	if err == nil {
		return "ALLOWED"
	}
	return "refused (" + err.Error() + ")"
}

// tryOutbox attempts what a Worker must not do: comment on issue 1.
func tryOutbox(ctx context.Context, db string) error {
	ob, err := outbox.OpenSQLite(db, outbox.Options{})
	if err != nil {
		return err
	}
	defer ob.Close()
	_, err = ob.Apply(ctx, outbox.Change{Actor: "worker", Ops: []outbox.Op{{Kind: outbox.OpComment, Issue: 1, Body: "a worker writes"}}})
	return err
}

// simProgress is how often a sleeping simulated Worker says it is still
// working: within any heartbeat bound worth setting, as a real agent's
// stream does.
const simProgress = 200 * time.Millisecond

// simWait waits for d (saying so every simProgress when progress is
// set) and reports whether ctx let it finish.
func simWait(ctx context.Context, d time.Duration, progress bool, out io.Writer) bool {
	end := time.NewTimer(d)
	defer end.Stop()
	var tick <-chan time.Time
	if progress {
		t := time.NewTicker(simProgress)
		defer t.Stop()
		tick = t.C
	}
	start := time.Now()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-end.C:
			return true
		case <-tick:
			fmt.Fprintf(out, "still working (%s)\n", time.Since(start).Round(100*time.Millisecond))
		}
	}
}
