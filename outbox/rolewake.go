package outbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Role wakes: every write to the database wakes every Wait (the WAL
// grows), so ten Leads each read every event and compete for the cores
// to learn that nine of them had nothing to do. A Lead waits instead on
// a folder of its own, .<db>.wake/<role>/, which a writer pokes after
// its commit only when the change may concern that role: a to:<role>
// label, an assignment to the role or its Lead, an @role mention, or any
// op on an issue that carries one of those. A change that may concern
// every role (a close, which may free any role's blocked issue; a
// decision stamp, which every Lead's memory follows; a comment on an
// accepted issue; the forge mirror's import) pokes every folder. The
// poke is a hint, never the truth: the Wait still returns at the wake
// interval, and the Lead then reads every event past its cursor, so an
// event a hint missed is only late, never lost.

// WakeDir is the folder of the role wake folders of the SQLite database
// at path (a dot name, so the database's own file watch ignores it): a
// Worker's guard keeps it read-only with the database.
func WakeDir(path string) string { return wakeDirOf(path) }

func wakeDirOf(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".wake")
}

// wakeKeys are the roles a change may concern; all: every role.
type wakeKeys struct {
	all  bool
	keys map[string]bool
	// seen are the issues whose state was read already.
	seen map[int64]bool
}

// add records key, a role name or a Lead's actor, when it can name a
// role (a key becomes a folder name: nothing that could leave it).
func (w *wakeKeys) add(key string) {
	key = strings.TrimPrefix(key, "lead:")
	if key == "" || len(key) > 64 || !roleStart(key[0]) || strings.ContainsAny(key, "/\\") {
		return
	}
	if w.keys == nil {
		w.keys = map[string]bool{}
	}
	w.keys[key] = true
}

// roleStart: a role name starts with a letter or a digit, never a dot.
func roleStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// label records what a label names: to:<role> its role; a decision
// label concerns every Lead (the memory).
func (w *wakeKeys) label(l string) {
	switch {
	case strings.HasPrefix(l, "to:"):
		w.add(strings.TrimPrefix(l, "to:"))
	case strings.HasPrefix(l, "decision:"):
		w.all = true
	}
}

// mentions records every @name of text (a superset of the Leads' own
// reading, lead.mentions: a name cut at a trailing dot counts too).
func (w *wakeKeys) mentions(text string) {
	for i := strings.IndexByte(text, '@'); i >= 0; {
		j := i + 1
		for j < len(text) && nameByte(text[j]) {
			j++
		}
		if t := text[i+1 : j]; t != "" {
			w.add(t)
			w.add(strings.TrimRight(t, "."))
		}
		k := strings.IndexByte(text[j:], '@')
		if k < 0 {
			break
		}
		i = j + k
	}
}

// nameByte: the characters of a role name (team's namePattern).
func nameByte(c byte) bool {
	return roleStart(c) || c == '.' || c == '_' || c == '-'
}

// issue records the roles issue id concerns as it stands in the
// transaction: its to: labels, its assignee and the mentions of its body
// (a comment on an issue whose body mentions a role may make that role
// take it).
func (a *applier) wakeIssue(id int64) error {
	if a.wake.seen[id] {
		return nil
	}
	if a.wake.seen == nil {
		a.wake.seen = map[int64]bool{}
	}
	a.wake.seen[id] = true
	var assignee, body string
	if err := a.queryRow(`SELECT assignee, body FROM issues WHERE id=?`, id).Scan(&assignee, &body); err != nil {
		return err
	}
	a.wake.add(assignee)
	a.wake.mentions(body)
	rows, err := a.tx.QueryContext(a.ctx, `SELECT label FROM labels WHERE issue=?`, id)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return err
		}
		a.wake.label(l)
	}
	return rows.Err()
}

// wakeOp records what op itself names; the issue's state before it is
// recorded by wakeIssue.
func (a *applier) wakeOp(op Op) {
	switch op.Kind {
	case OpOpen:
		a.wake.add(op.Assignee)
		a.wake.mentions(op.Body)
		for _, l := range op.Labels {
			a.wake.label(l)
		}
	case OpComment:
		a.wake.mentions(op.Body)
	case OpLabel, OpUnlabel:
		for _, l := range op.Labels {
			a.wake.label(l)
		}
	case OpAssign:
		a.wake.add(op.Assignee)
	default:
		// A close may free any role's blocked issue; a reopen, or an op
		// this list does not know, is not worth a guess.
		a.wake.all = true
	}
}

// poke wakes the role folders of w after its change committed. A folder
// nobody made (no Lead of that role waits) is skipped; a failed poke
// costs only latency (the wake interval still ends the wait).
func (s *SQLite) poke(w wakeKeys) {
	dir := wakeDirOf(s.path)
	if w.all {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			if e.IsDir() {
				pokeFolder(dir, e.Name())
			}
		}
		return
	}
	for k := range w.keys {
		pokeFolder(dir, k)
	}
}

// pokeAll wakes every role: a write that did not go through Apply.
func (s *SQLite) pokeAll() { s.poke(wakeKeys{all: true}) }

// roleWaiter watches one role's wake folder. pending holds a poke that
// came while no Wait was waiting (during the Lead's read of the events),
// so that the next Wait returns at once: the poke comes after its commit,
// and a Wait started after the poke must not sleep on it.
type roleWaiter struct {
	mu      sync.Mutex
	pending bool
	ch      chan struct{}
	w       *fsnotify.Watcher
	done    chan struct{}
}

func newRoleWaiter(folder string) (*roleWaiter, error) {
	if err := os.MkdirAll(folder, 0o700); err != nil {
		return nil, err
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if err := w.Add(folder); err != nil {
		w.Close()
		return nil, err
	}
	r := &roleWaiter{ch: make(chan struct{}), w: w, done: make(chan struct{})}
	// The first Wait reads the events: anything before the watch began.
	r.pending = true
	go r.loop()
	return r, nil
}

func (r *roleWaiter) loop() {
	defer close(r.done)
	for {
		select {
		case ev, ok := <-r.w.Events:
			if !ok {
				return
			}
			if ev.Op&(fsnotify.Write|fsnotify.Create) != 0 {
				r.fire()
			}
		case _, ok := <-r.w.Errors:
			if !ok {
				return
			}
			// An overflow lost pokes: read the events, to be safe.
			r.fire()
		}
	}
}

func (r *roleWaiter) fire() {
	r.mu.Lock()
	r.pending = true
	close(r.ch)
	r.ch = make(chan struct{})
	r.mu.Unlock()
}

// take returns whether a poke is pending (and clears it), and the
// channel closed at the next poke.
func (r *roleWaiter) take() (bool, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.pending
	r.pending = false
	return p, r.ch
}

func (r *roleWaiter) close() {
	r.w.Close()
	<-r.done
}

// WaitRole is Wait for the Lead of role: it returns when a change that
// may concern the role committed since the last WaitRole returned, ctx
// ends, or the wake interval passes (then the caller reads every event
// past its cursor, whatever the pokes said). Unlike Wait it does not
// return for events past after that concern other roles. Where the
// folder cannot be watched, it is Wait.
func (s *SQLite) WaitRole(ctx context.Context, after int64, role string) error {
	r, err := s.roleWaiter(role)
	if err != nil {
		return s.Wait(ctx, after)
	}
	pending, ch := r.take()
	if pending {
		return nil
	}
	t := time.NewTimer(s.wake)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	case <-ch:
		r.take()
		return nil
	}
}

// roleWaiter returns the watch of role's folder, made on first use.
func (s *SQLite) roleWaiter(role string) (*roleWaiter, error) {
	s.wakeMu.Lock()
	defer s.wakeMu.Unlock()
	if s.closed {
		return nil, errors.New("outbox: closed")
	}
	if r, ok := s.waiters[role]; ok {
		if r == nil {
			// Could not watch (no inotify left, a read-only folder):
			// not tried again on every wait.
			return nil, errors.New("outbox: no role wake for " + role)
		}
		return r, nil
	}
	var k wakeKeys
	k.add(role)
	if !k.keys[role] {
		return nil, errors.New("outbox: not a role name: " + role)
	}
	if s.waiters == nil {
		s.waiters = map[string]*roleWaiter{}
	}
	r, err := newRoleWaiter(filepath.Join(wakeDirOf(s.path), role))
	s.waiters[role] = r
	if err != nil {
		return nil, err
	}
	return r, nil
}

// closeWaiters ends the role watches (Close).
func (s *SQLite) closeWaiters() {
	s.wakeMu.Lock()
	s.closed = true
	ws := s.waiters
	s.waiters = nil
	s.wakeMu.Unlock()
	for _, r := range ws {
		if r != nil {
			r.close()
		}
	}
}
