package lead

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/worker"
)

// loopWorkflow is a role whose workflow is a loop of the test binary's
// agents (runLoopAgent): a coder, the simulated reviewer (changes
// requested once, then approved) and a command judge that passes once
// the coder addressed the review. Every run is noted in trace.
func loopWorkflow(trace string) string {
	self := strconv.Quote(os.Args[0])
	tr := strconv.Quote(trace)
	return fmt.Sprintf(`[roles.r0]
workflow = "loop"
coder = "impl"
reviewer = "review"
judge = "command"
judge_command = [%[1]s, "loopjudge", %[2]s]
max_iterations = 3

[roles.r0.lanes.impl]
worker = [%[1]s, "loopcoder", %[2]s]

[roles.r0.lanes.review]
worker = [%[1]s, "loopreviewer", %[2]s]
`, self, tr)
}

// runLoopAgent plays an agent of loopWorkflow, in the loop iteration
// DAOKIT_ITERATION says. The coder fixes (writes fixed.txt) only when its
// instruction carries a review's findings, and in iteration 2 and later
// waits while trace.hold exists (a moment to kill its Lead in); the
// reviewer is the simulated agent's; the judge passes when fixed.txt is
// there.
func runLoopAgent(role, trace string) int {
	it := os.Getenv(envIteration)
	note := func(what string) {
		f, err := os.OpenFile(trace, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			os.Exit(2)
		}
		fmt.Fprintf(f, "%s %s %s\n", role, it, what)
		f.Close()
	}
	note("start")
	in, _ := io.ReadAll(os.Stdin)
	code := 0
	switch role {
	case "loopcoder":
		n, _ := strconv.Atoi(it)
		for deadline := time.Now().Add(time.Minute); n >= 2 && time.Now().Before(deadline); {
			if _, err := os.Stat(trace + ".hold"); errors.Is(err, os.ErrNotExist) {
				break
			}
			time.Sleep(10 * time.Millisecond) // a stand-in agent at work until released
		}
		if strings.Contains(string(in), "Address these findings") {
			if err := os.WriteFile("fixed.txt", []byte("fixed\n"), 0o644); err != nil {
				return 1
			}
		}
		fmt.Printf("coded iteration %s\nChanges: commit loop-%s\nTests: unit tests of iteration %s passed\nState: done\n", it, it, it)
	case "loopreviewer":
		n, _ := strconv.Atoi(it)
		code = worker.RunSim(context.Background(), worker.SimOptions{Role: worker.SimRoleReviewer, Iteration: n, Instruction: string(in)}, os.Stdout, os.Stderr)
	case "loopjudge":
		if _, err := os.Stat("fixed.txt"); err != nil {
			fmt.Println("check: fixed.txt is missing")
			code = 1
		} else {
			fmt.Println("check: fixed.txt is there")
		}
	}
	note("end")
	return code
}

// loopRuns counts the runs the trace noted: "loopcoder 1 start" → n.
func loopRuns(t testing.TB, trace string) map[string]int {
	t.Helper()
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		runs[line]++
	}
	return runs
}

// doneComment is the Lead's one result comment on id, parsed.
func doneComment(t testing.TB, p *project, id int64) outbox.Mailbox {
	t.Helper()
	var got []outbox.Mailbox
	for _, c := range p.comments(id) {
		if roster.IsLead(c.Author) && strings.HasPrefix(c.Body, "Done: the Worker finished") {
			got = append(got, outbox.ParseMailbox(c.Body))
		}
	}
	if len(got) != 1 {
		t.Fatalf("#%d: %d result comments, want 1", id, len(got))
	}
	return got[0]
}

// checkLoopEvidence: the result's evidence is the coder's with the
// reviewer's verdict (Changes) and the judge's decision (Tests).
func checkLoopEvidence(t testing.TB, m outbox.Mailbox) {
	t.Helper()
	if c := m.Fields[outbox.FieldChanges]; !strings.HasPrefix(c, "commit loop-2; review (iteration 2/3): approve") {
		t.Errorf("Changes = %q, want the coder's change and the reviewer's approval", c)
	}
	if c := m.Fields[outbox.FieldTests]; !strings.Contains(c, "unit tests of iteration 2 passed; judge command (iteration 2/3): JUDGE_COMMAND_PASSED — check: fixed.txt is there") {
		t.Errorf("Tests = %q, want the coder's tests and the judge's decision", c)
	}
	if m.Fields[outbox.FieldState] != roster.LabelDone || len(m.Invalid) > 0 {
		t.Errorf("fields %v, invalid %v", m.Fields, m.Invalid)
	}
}

// TestLoopRoleClosesIssue: a role with a loop workflow closes its issue
// after two iterations (the reviewer requested changes once, the judge
// failed until the coder addressed them), each agent run once per
// iteration, with the reviewer's verdict and the judge's decision as the
// evidence of the Lead's result.
func TestLoopRoleClosesIssue(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace")
	p := newProject(t, loopWorkflow(trace), time.Second)
	runLead(t, p.lead("r0", 1, nil))
	id := p.file("add the handler", "", "to:r0")
	p.waitFor("the issue closed", 60*time.Second, func() bool { return p.issue(id).Closed })

	if is := p.issue(id); !is.HasLabel(roster.LabelDone) {
		t.Errorf("labels %v", is.Labels)
	}
	checkLoopEvidence(t, doneComment(t, p, id))
	runs := loopRuns(t, trace)
	for _, a := range []string{"loopcoder", "loopreviewer", "loopjudge"} {
		for it := 1; it <= 2; it++ {
			if n := runs[fmt.Sprintf("%s %d end", a, it)]; n != 1 {
				t.Errorf("%s ran %d times in iteration %d, want 1 (%v)", a, n, it, runs)
			}
		}
	}
	// Each step's Worker kept its logs in the attempt's folder.
	dir := roster.AttemptDir(roster.StatusDir(p.wf), "r0", id, 1)
	for _, step := range []string{"I1-coder", "I1-reviewer", "I1-judge", "I2-coder", "I2-reviewer", "I2-judge"} {
		if _, err := os.Stat(filepath.Join(dir, step, stepRecordFile)); err != nil {
			t.Errorf("step %s: %v", step, err)
		}
	}
	if out, _ := os.ReadFile(filepath.Join(dir, "I1-reviewer", "stdout.log")); !strings.Contains(string(out), `"verdict":"request_changes"`) {
		t.Errorf("the first review's log: %q", out)
	}
	// daokit logs and the window follow the step that wrote last.
	if got := roster.AttemptLogDir(dir); got != filepath.Join(dir, "I2-judge") {
		t.Errorf("the attempt's logs are in %s", got)
	}
	for _, s := range []string{"I2-judge", "I12-coder"} {
		if !roster.ValidLoopStep(s) {
			t.Errorf("%s is a step", s)
		}
	}
	for _, s := range []string{"../x", "I1-a/b", "S1", "I0-impl", ""} {
		if roster.ValidLoopStep(s) {
			t.Errorf("%q is no step", s)
		}
	}
}

// TestLoopSurvivesLeadSIGKILL: a Lead SIGKILLed while the loop's second
// coder runs is replaced; the new Lead finishes the loop in the same
// attempt without running again a step that had finished (the first
// coder, review and judge), and the issue closes with one result.
func TestLoopSurvivesLeadSIGKILL(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace")
	if err := os.WriteFile(trace+".hold", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p := newProject(t, loopWorkflow(trace), time.Second)
	leads := startLeadProcs(t, p.dir, 1)
	id := p.file("add the handler", "", "to:r0")
	started := func() int {
		data, _ := os.ReadFile(trace)
		return strings.Count(string(data), "loopcoder 2 start\n")
	}
	p.waitFor("the second coder at work", 60*time.Second, func() bool { return started() == 1 })
	leads.restart(0, syscall.SIGKILL)
	p.waitFor("the second coder at work again", 60*time.Second, func() bool { return started() == 2 })
	if err := os.Remove(trace + ".hold"); err != nil {
		t.Fatal(err)
	}
	p.waitFor("the issue closed", 60*time.Second, func() bool { return p.issue(id).Closed })

	checkLoopEvidence(t, doneComment(t, p, id))
	runs := loopRuns(t, trace)
	for _, step := range []string{"loopcoder 1", "loopreviewer 1", "loopjudge 1", "loopcoder 2 end", "loopreviewer 2", "loopjudge 2"} {
		start, end := runs[step+" start"], runs[step+" end"]
		if strings.HasSuffix(step, " end") {
			start, end = 1, runs[step]
		}
		if start != 1 || end != 1 {
			t.Errorf("%s: %d starts, %d ends; want 1 each (%v)", step, start, end, runs)
		}
	}
	if atts, _ := roster.Attempts(roster.StatusDir(p.wf), "r0", id); len(atts) != 1 {
		t.Errorf("attempts %v, want the one the loop went on with", atts)
	}
}
