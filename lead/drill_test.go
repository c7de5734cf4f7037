package lead

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
)

// TestDrillKillLeads files 1,000 triggers across 5 roles (a tenth of them
// posted twice) while Lead processes are SIGKILLed at random moments and
// restarted: every trigger is answered exactly once, no cursor ever moves
// backwards, and no Lead comment is posted twice. 10 kills; 100 with
// DAOKIT_DRILL=full (make drill).
func TestDrillKillLeads(t *testing.T) {
	kills := 10
	if os.Getenv("DAOKIT_DRILL") == "full" {
		kills = 100
	}
	const roles, triggers = 5, 1000
	wf := ""
	for r := range roles {
		wf += fmt.Sprintf("[roles.r%d]\n", r)
	}
	p := newProject(t, wf, time.Second)
	ctx := context.Background()
	issue := make([]int64, roles)
	for r := range roles {
		issue[r] = p.file(fmt.Sprintf("talk to r%d", r), "", fmt.Sprintf("to:r%d", r))
		p.do("ann", outbox.Op{Kind: outbox.OpClose, Issue: issue[r]})
	}

	leads := startLeadProcs(t, p.dir, roles)

	// The cursor watch: every reader's cursor only grows.
	watchCtx, stopWatch := context.WithCancel(ctx)
	var watch sync.WaitGroup
	watch.Add(1)
	go func() {
		defer watch.Done()
		last := map[string]int64{}
		for watchCtx.Err() == nil {
			cs, err := p.ob.Cursors(ctx)
			if err != nil {
				continue
			}
			for r, c := range cs {
				if c < last[r] {
					t.Errorf("cursor of %s moved back from %d to %d", r, last[r], c)
				}
				last[r] = c
			}
			if err := p.ob.Wait(watchCtx, 1<<62); err != nil {
				return
			}
		}
	}()

	rng := rand.New(rand.NewPCG(1, 2))
	every := triggers / kills
	for i := range triggers {
		r := i % roles
		body := fmt.Sprintf("request %d\nTrigger: D-%d", i, i)
		p.do("ann", outbox.Op{Kind: outbox.OpComment, Issue: issue[r], Body: body})
		if i%10 == 0 {
			p.do("bob", outbox.Op{Kind: outbox.OpComment, Issue: issue[r], Body: "again: " + body})
		}
		if (i+1)%every == 0 {
			victim := rng.IntN(roles)
			// A random moment: the Lead is somewhere in its work.
			jitter := time.NewTimer(time.Duration(rng.IntN(3000)) * time.Microsecond)
			<-jitter.C
			leads.restart(victim, syscall.SIGKILL)
		}
	}

	head := func() int64 { h, _ := p.ob.Head(ctx); return h }
	p.waitFor("every Lead caught up", 120*time.Second, func() bool {
		h := head()
		cs, _ := p.ob.Cursors(ctx)
		for r := range roles {
			if cs[roster.Actor(fmt.Sprintf("r%d", r))] != h {
				return false
			}
		}
		return h == head()
	})
	stopWatch()
	watch.Wait()

	seen := map[string]int{}
	bodies := map[string]bool{}
	for r := range roles {
		for _, c := range p.comments(issue[r]) {
			if !roster.IsLead(c.Author) {
				continue
			}
			if bodies[c.Body] {
				t.Errorf("comment posted twice: %q", c.Body)
			}
			bodies[c.Body] = true
			if c.Author != roster.Actor(fmt.Sprintf("r%d", r)) {
				t.Errorf("%s answered on r%d's issue", c.Author, r)
			}
			seen[outbox.ParseMailbox(c.Body).Fields[outbox.FieldTrigger]]++
		}
	}
	for i := range triggers {
		if n := seen[fmt.Sprintf("D-%d", i)]; n != 1 {
			t.Errorf("trigger D-%d answered %d times", i, n)
		}
	}
	if len(seen) != triggers {
		t.Errorf("%d triggers answered, want %d", len(seen), triggers)
	}
	t.Logf("%d triggers, %d kills, head %d", triggers, kills, head())
}
