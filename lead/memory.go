package lead

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/team"
)

// memoryWriter is the one role whose Lead writes accepted decisions to
// the project memory: "recorder" when the workflow has it, else the first
// role (by name) with accepts = true; "" when no role may.
func memoryWriter(w *team.Workflow) string {
	if r, ok := w.Roles["recorder"]; ok && r.Accepts {
		return "recorder"
	}
	for _, n := range w.Names {
		if w.Roles[n].Accepts {
			return n
		}
	}
	return ""
}

// stampAllowed: decision:accepted counts when a person set it or the Lead
// of an accepting role (architect, integrator…) did; never a Worker, and
// never a Lead of a role that may not accept.
func (l *Lead) stampAllowed(actor string) bool {
	if !roster.IsLead(actor) {
		return true
	}
	r, ok := l.o.Workflow.Roles[strings.TrimPrefix(actor, "lead:")]
	return ok && r.Accepts
}

// slugRe is compiled on first use (see ledger's dateTimePattern).
var slugRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9]+`) })

// memoryFile is where an accepted issue is recorded.
func memoryFile(w *team.Workflow, is outbox.Issue) string {
	slug := strings.Trim(slugRe().ReplaceAllString(strings.ToLower(is.Title), "-"), "-")
	if len(slug) > 48 {
		slug = strings.Trim(slug[:48], "-")
	}
	if slug == "" {
		slug = "decision"
	}
	return filepath.Join(w.MemoryPath(), fmt.Sprintf("%04d-%s.md", is.ID, slug))
}

// onAccepted writes an accepted issue to memory (only the memory
// writer's Lead does). The file is written before the change that moves
// the cursor, and its content depends only on the issue, so a crash in
// between rewrites the same bytes: never a half or a second version.
// Only the issue's title and body are recorded, never its discussion.
func (l *Lead) onAccepted(ctx context.Context, ev outbox.Event) (*effect, error) {
	if memoryWriter(l.o.Workflow) != l.o.Role || !l.stampAllowed(ev.Actor) {
		return nil, nil
	}
	is, err := l.ob.Issue(ctx, ev.Issue)
	if err != nil {
		return nil, err
	}
	if !is.HasLabel(roster.LabelAccepted) {
		return nil, nil // stamped, then unstamped before we read it
	}
	path := memoryFile(l.o.Workflow, is)
	content := fmt.Sprintf("# %s\n\nAccepted: #%d, stamped by %s (event %d)\n\n%s\n", is.Title, is.ID, ev.Actor, ev.ID, strings.TrimSpace(is.Body))
	if err := writeFileAtomic(path, []byte(content)); err != nil {
		return nil, err
	}
	rel, _ := filepath.Rel(l.o.Workflow.Dir, path)
	m := outbox.Mailbox{Text: fmt.Sprintf("Recorded in the project memory: %s", rel), Fields: map[string]string{
		outbox.FieldReadUpTo: strconv.FormatInt(ev.ID, 10)}}
	return &effect{change: outbox.Change{Trigger: "memory:" + strconv.FormatInt(is.ID, 10),
		Ops: []outbox.Op{{Kind: outbox.OpComment, Issue: is.ID, Body: m.Render()}}}}, nil
}

// writeFileAtomic replaces path with data the way the ledger replaces
// its documents (ledger.ReplaceFile: temp file, fsync, rename, fsync of
// the folder; a link at path is replaced, never followed).
func writeFileAtomic(path string, data []byte) error {
	if err := ensureDir(filepath.Dir(path)); err != nil {
		return err
	}
	return ledger.ReplaceFile(filepath.Dir(path), filepath.Base(path), data)
}
