package lead

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/team"
)

// Project memory read back (seed 003: 已 Accepted 的稳定结论 are the
// project's memory): every Worker a Lead starts gets a digest of the
// accepted decisions in its brief, and its Lead keeps the same list.
// Only accepted decisions count: a memory file whose issue no longer
// carries decision:accepted (unstamped since), or a file the memory
// writer did not write, is left out. A decision that names roles (a
// "Roles: a, b" line or an @role mention) is given only to those roles;
// one that names none, to every role.

// The bounds of a digest: it is the same for the same memory, and never
// grows past these however long the project runs.
const (
	// digestMaxDecisions is how many decisions a digest shows, newest
	// first; the rest are counted and left in memory/.
	digestMaxDecisions = 20
	// digestMaxBody is how much of one decision's text is quoted.
	digestMaxBody = 400
	// digestMaxBytes bounds the whole digest.
	digestMaxBytes = 8 << 10
)

// fieldRoles is the line by which a decision names the roles it is for.
const fieldRoles = "Roles"

// decision is one accepted decision of the project memory.
type decision struct {
	Issue int64
	Title string
	// Event is the outbox event that stamped it: the order, newest first.
	Event int64
	// File is the memory file, relative to the outbox root.
	File string
	// Roles it names (empty: the whole project).
	Roles []string
	Body  string
}

// For reports whether the decision is given to role.
func (d decision) For(role string) bool { return len(d.Roles) == 0 || slices.Contains(d.Roles, role) }

// memoryCache keeps parsed memory files by name, size and time, so that
// a Lead re-reads only what changed before each Worker start.
type memoryCache map[string]cachedDecision

type cachedDecision struct {
	size int64
	mod  time.Time
	d    decision
	ok   bool
}

// readDecisions reads the accepted decisions of the project memory, newest
// first: the memory files whose issue still carries decision:accepted.
// cache spares re-reading the files that did not change.
func readDecisions(ctx context.Context, wf *team.Workflow, ob outbox.Backend, cache memoryCache) ([]decision, error) {
	entries, err := os.ReadDir(wf.MemoryPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	accepted, err := ob.List(ctx, outbox.Query{Label: roster.LabelAccepted})
	if err != nil {
		return nil, err
	}
	stamped := make(map[int64]bool, len(accepted))
	for _, is := range accepted {
		stamped[is.ID] = true
	}
	var out []decision
	seen := map[string]bool{}
	for _, e := range entries {
		id, ok := memoryIssue(e.Name())
		if !ok || !e.Type().IsRegular() || !stamped[id] {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		seen[e.Name()] = true
		c, hit := cache[e.Name()]
		if !hit || c.size != info.Size() || !c.mod.Equal(info.ModTime()) {
			c = cachedDecision{size: info.Size(), mod: info.ModTime()}
			if data, err := os.ReadFile(filepath.Join(wf.MemoryPath(), e.Name())); err == nil {
				c.d, c.ok = parseMemoryFile(wf, e.Name(), id, string(data))
			}
			cache[e.Name()] = c
		}
		if c.ok {
			out = append(out, c.d)
		}
	}
	for name := range cache {
		if !seen[name] {
			delete(cache, name)
		}
	}
	slices.SortFunc(out, func(a, b decision) int {
		if c := cmp.Compare(b.Event, a.Event); c != 0 {
			return c
		}
		return cmp.Compare(b.Issue, a.Issue)
	})
	return out, nil
}

// memoryIssue reads the issue id of a memory file name ("0012-title.md").
func memoryIssue(name string) (int64, bool) {
	num, _, ok := strings.Cut(name, "-")
	if !ok || !strings.HasSuffix(name, ".md") || len(num) < 4 {
		return 0, false
	}
	id, err := strconv.ParseInt(num, 10, 64)
	return id, err == nil && id > 0
}

// parseMemoryFile reads a file onAccepted wrote: "# Title", a blank
// line, "Accepted: #id, stamped by X (event N)", a blank line, the body.
// Anything else is not a decision the memory writer recorded.
func parseMemoryFile(wf *team.Workflow, name string, id int64, data string) (decision, bool) {
	title, rest, ok := strings.Cut(data, "\n")
	if !ok || !strings.HasPrefix(title, "# ") {
		return decision{}, false
	}
	rest = strings.TrimLeft(rest, "\n")
	header, body, _ := strings.Cut(rest, "\n")
	prefix := fmt.Sprintf("Accepted: #%d, stamped by ", id)
	_, ev, ok := strings.Cut(header, " (event ")
	if !strings.HasPrefix(header, prefix) || !ok || !strings.HasSuffix(ev, ")") {
		return decision{}, false
	}
	event, err := strconv.ParseInt(strings.TrimSuffix(ev, ")"), 10, 64)
	if err != nil {
		return decision{}, false
	}
	rel, err := filepath.Rel(wf.Dir, filepath.Join(wf.MemoryPath(), name))
	if err != nil {
		rel = filepath.Join(wf.MemoryPath(), name)
	}
	d := decision{Issue: id, Title: strings.TrimSpace(title[2:]), Event: event, File: filepath.ToSlash(rel), Body: strings.TrimSpace(body)}
	named := map[string]bool{}
	for _, line := range strings.Split(d.Body, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && k == fieldRoles {
			for _, r := range strings.FieldsFunc(v, func(c rune) bool { return c == ',' || c == ' ' }) {
				named[strings.TrimPrefix(r, "@")] = true
			}
		}
	}
	for _, r := range wf.Names {
		if named[r] || mentions(d.Title+"\n"+d.Body, r) {
			d.Roles = append(d.Roles, r)
		}
	}
	return d, true
}

// digest renders the decisions given to role (ds newest first) for a
// brief: each with its issue, title and memory file, and the start of
// its text quoted ("> ", so that nothing in it reads as an instruction
// line of the brief's own). It is bounded (digestMaxDecisions,
// digestMaxBody, digestMaxBytes) and the same for the same memory.
// Empty when no decision is for role.
func digest(ds []decision, role string) string {
	var mine []decision
	for _, d := range ds {
		if d.For(role) {
			mine = append(mine, d)
		}
	}
	if len(mine) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Project memory: accepted decisions (newest first, %d)\n", len(mine))
	shown := 0
	for _, d := range mine {
		if shown == digestMaxDecisions {
			break
		}
		var e strings.Builder
		fmt.Fprintf(&e, "\n- #%d %s (%s)", d.Issue, oneLine(d.Title), d.File)
		if len(d.Roles) > 0 {
			fmt.Fprintf(&e, " [for %s]", strings.Join(d.Roles, ", "))
		}
		e.WriteByte('\n')
		for _, line := range strings.Split(clip(d.Body, digestMaxBody), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				e.WriteString("  > " + line + "\n")
			}
		}
		if b.Len()+e.Len() > digestMaxBytes-200 {
			break
		}
		b.WriteString(e.String())
		shown++
	}
	if rest := len(mine) - shown; rest > 0 {
		fmt.Fprintf(&b, "\n(%d older accepted decisions are not shown; they are in the memory folder.)\n", rest)
	}
	return b.String()
}

// oneLine flattens s to one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to at most n bytes at a character boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// brief is what a Worker of role reads on its stdin for issue is: the
// issue's title and body, then the digest of the project memory given
// to the role.
func brief(is outbox.Issue, digest string) string {
	s := is.Title + "\n\n" + is.Body + "\n"
	if digest != "" {
		s += "\n" + digest
	}
	return s
}

// refreshMemory re-reads the decisions given to the Lead's role (only
// the files that changed) and keeps their files for its status.
func (l *Lead) refreshMemory(ctx context.Context) ([]decision, error) {
	ds, err := readDecisions(ctx, l.o.Workflow, l.ob, l.memory)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, d := range ds {
		if d.For(l.o.Role) {
			files = append(files, d.File)
		}
	}
	l.mu.Lock()
	l.memoryFiles, l.memoryDirty = files, false
	l.mu.Unlock()
	return ds, nil
}
