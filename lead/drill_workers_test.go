package lead

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
)

// TestDrillWorkersRunOnce files 600 issues across 3 roles (2 Workers
// each at a time) while their Lead processes are stopped at random
// moments, 9 in 10 with SIGKILL and 1 in 10 with SIGTERM, and restarted:
// every issue is done once, and no Worker that had finished (its result
// line, which it prints last, is in its log) is run again; one that a
// dead Lead's end killed mid-work runs again, which is not a repeat. 120 issues
// and 10 stops; 600 and 60 with DAOKIT_DRILL=full (make drill).
func TestDrillWorkersRunOnce(t *testing.T) {
	issues, stops := 120, 10
	if os.Getenv("DAOKIT_DRILL") == "full" {
		issues, stops = 600, 60
	}
	const roles = 3
	trace := filepath.Join(t.TempDir(), "trace")
	wf := ""
	for r := range roles {
		wf += fmt.Sprintf("[roles.r%d]\nworker = [%q, \"traceworker\", %q, \"{issue}\"]\n", r, os.Args[0], trace)
	}
	p := newProject(t, wf, time.Second)

	leads := startLeadProcs(t, p.dir, roles)

	ids := make([]int64, 0, issues)
	for i := range issues {
		ids = append(ids, p.file(fmt.Sprintf("job %d", i), "", fmt.Sprintf("to:r%d", i%roles)))
	}
	closed := func() int {
		list, _ := p.ob.List(t.Context(), outbox.Query{State: "closed"})
		return len(list)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	sigkills, sigterms := 0, 0
	for i := range stops {
		if closed() >= issues {
			break
		}
		// A random moment: the Leads are somewhere in their work.
		jitter := time.NewTimer(time.Duration(20+rng.IntN(200)) * time.Millisecond)
		<-jitter.C
		victim := rng.IntN(roles)
		sig := syscall.SIGKILL
		if i%10 == 9 {
			sig = syscall.SIGTERM
		}
		leads.restart(victim, sig)
		if sig == syscall.SIGKILL {
			sigkills++
		} else {
			sigterms++
		}
	}
	p.waitFor("every issue closed", 300*time.Second, func() bool { return closed() >= issues })

	// Who ran: the trace the Workers wrote (independent of the Lead).
	// Who had finished: the attempts whose log holds the Worker's result
	// line, which it prints last.
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	started := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "start" {
			started[f[1]]++
		} else if len(f) != 3 {
			t.Fatalf("trace line %q", line)
		}
	}
	repeated, rerunUnfinished, starts := 0, 0, 0
	for _, id := range ids {
		n := started[fmt.Sprint(id)]
		starts += n
		atts, err := roster.Attempts(roster.StatusDir(p.wf), fmt.Sprintf("r%d", (id-1)%roles), id)
		if err != nil {
			t.Fatal(err)
		}
		if len(atts) < n {
			// (More attempts than starts: a Worker killed with its Lead
			// before it could note its start.)
			t.Errorf("#%d: %d Workers started, %d attempts kept", id, n, len(atts))
		}
		finished := 0
		for _, a := range atts {
			out, _ := os.ReadFile(filepath.Join(roster.AttemptDir(roster.StatusDir(p.wf), fmt.Sprintf("r%d", (id-1)%roles), id, a), "stdout.log"))
			if strings.Contains(string(out), "State: done\n") {
				finished++
			} else if finished == 0 {
				rerunUnfinished++
			}
			if finished > 0 && !strings.Contains(string(out), "State: done\n") || finished > 1 {
				repeated++
				t.Errorf("#%d: attempt %d ran after one had finished (attempts %v)", id, a, atts)
			}
		}
		if finished == 0 {
			t.Errorf("#%d: no Worker finished (attempts %v)", id, atts)
		}
		is := p.issue(id)
		if !is.Closed || !is.HasLabel(roster.LabelDone) {
			t.Errorf("#%d: %v", id, is.Labels)
		}
		done := 0
		for _, c := range p.comments(id) {
			if strings.HasPrefix(c.Body, "Done: the Worker finished") {
				done++
			}
		}
		if done != 1 {
			t.Errorf("#%d: %d Done comments", id, done)
		}
	}
	report := fmt.Sprintf("worker drill: %d issues, %d SIGKILL + %d SIGTERM of Leads, %d Worker runs noted, %d finished Workers run again, %d attempts killed unfinished with their Lead and run again",
		issues, sigkills, sigterms, starts, repeated, rerunUnfinished)
	t.Log(report)
	if os.Getenv("DAOKIT_DRILL") == "full" {
		fmt.Println(report)
	}
}
