package e2e

import (
	"context"
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
	"github.com/daokit/daokit/team"
)

// TestTeamDrillWorkersRunOnce files issues for three roles (two Workers
// each at a time, the simulated role Worker) while the controller and
// the Leads it supervises are SIGKILLed at random moments (one stop in
// three is the controller's, whose Leads then get SIGTERM and the next
// controller starts new ones): every issue is done once, and no Worker
// that had finished (its result line is in its attempt's log) is run
// again, and each issue's two triggers (its claim and its Worker's
// result) are answered exactly once. 60 issues and 6 kills; 600 issues
// (1,200 triggers) and 60 kills with DAOKIT_DRILL=full, whose Workers
// work longer so that the team is still at work for every kill.
func TestTeamDrillWorkersRunOnce(t *testing.T) {
	issues, kills, work := 60, 6, "30ms"
	if full() {
		issues, kills, work = 600, 60, "200ms"
	}
	const roles = 3
	root := newRoot(t, simConfig("1s")+"\n[team]\noutbox_root = \"team\"\n[team.role_max_concurrent]\nr0 = 2\nr1 = 2\nr2 = 2\n")
	dir := filepath.Join(root, "team")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "workflow.toml"), []byte("[roles.r0]\n[roles.r1]\n[roles.r2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, "outbox", "init", "--root", root); r.code != 0 {
		t.Fatalf("outbox init: %+v", r)
	}
	wf, err := team.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ob, err := outbox.OpenSQLite(wf.DBPath(), outbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ob.Close()
	ctx := context.Background()

	c := startController(t, root)
	defer func() { c.stop() }()
	ids := make([]int64, 0, issues)
	for i := range issues {
		r, err := ob.Apply(ctx, outbox.Change{Actor: "person", Ops: []outbox.Op{{Kind: outbox.OpOpen,
			Title: fmt.Sprintf("job %d", i), Body: "Sim: sleep " + work, Labels: []string{fmt.Sprintf("to:r%d", i%roles)}}}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.Issues[0])
	}
	closed := func() int {
		list, _ := ob.List(ctx, outbox.Query{State: "closed"})
		return len(list)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	controllerKills, leadKills := 0, 0
	for controllerKills+leadKills < kills {
		if closed() >= issues {
			break
		}
		// A random moment: the team is somewhere in its work.
		jitter := time.NewTimer(time.Duration(50+rng.IntN(300)) * time.Millisecond)
		<-jitter.C
		// One kill in three is the controller's (a Lead kill that found
		// no live Lead is tried again).
		if (controllerKills+leadKills)%3 == 2 {
			c.kill()
			c = startController(t, root)
			controllerKills++
			continue
		}
		// Only a live Lead of this root: a status file outlives its Lead.
		st, err := roster.ReadStatus(roster.StatusDir(wf), fmt.Sprintf("r%d", rng.IntN(roles)))
		if err == nil && st.PID > 0 && isLeadOf(st.PID, root) && syscall.Kill(st.PID, syscall.SIGKILL) == nil {
			leadKills++
		}
	}
	waitFor(t, 300*time.Second, "every issue closed", func() bool { return closed() >= issues })

	repeated, rerun, answered := 0, 0, 0
	for i, id := range ids {
		role := fmt.Sprintf("r%d", i%roles)
		atts, err := roster.Attempts(roster.StatusDir(wf), role, id)
		if err != nil {
			t.Fatal(err)
		}
		finished := 0
		for _, a := range atts {
			out, _ := os.ReadFile(filepath.Join(roster.AttemptDir(roster.StatusDir(wf), role, id, a), "stdout.log"))
			done := strings.Contains(string(out), "State: done\n")
			if finished > 0 {
				repeated++
				t.Errorf("#%d: attempt %d ran after one had finished (attempts %v)", id, a, atts)
			} else if !done {
				rerun++
			}
			if done {
				finished++
			}
		}
		if finished == 0 {
			t.Errorf("#%d: no Worker finished (attempts %v)", id, atts)
		}
		cs, err := ob.Comments(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		n, claims := 0, 0
		for _, c := range cs {
			if strings.HasPrefix(c.Body, "Done: the Worker finished") {
				n++
			}
			if strings.HasPrefix(c.Body, "lead:"+role+" claims #") {
				claims++
			}
		}
		if n != 1 || claims != 1 {
			t.Errorf("#%d: %d Done comments, %d claims", id, n, claims)
		} else {
			answered += 2
		}
	}
	report := fmt.Sprintf("team worker drill: %d issues, %d of %d triggers answered exactly once, %d SIGKILL of the controller, %d SIGKILL of Leads, %d finished Workers run again, %d attempts stopped unfinished and run again",
		issues, answered, 2*issues, controllerKills, leadKills, repeated, rerun)
	t.Log(report)
	if full() {
		fmt.Println(report)
	}
}

// isLeadOf reports whether pid is a Lead process of root (its command
// line says "lead" and names root): the drill kills nothing else.
func isLeadOf(pid int, root string) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	args := strings.Split(string(data), "\x00")
	return len(args) > 1 && args[1] == "lead" && strings.Contains(string(data), root)
}
