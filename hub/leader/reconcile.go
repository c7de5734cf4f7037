package leader

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/daokit/daokit/backoff"
	"github.com/daokit/daokit/hub/mirror"
)

// Documents are the documents of a root's state/ that Reconcile
// publishes at each election (the ledger's contract documents and the
// handoff package); any other the store writes is published as it is
// written.
var Documents = []string{"pipeline_state.json", "heartbeat_status.json", "process_leases.json", "handoff_package.json"}

// Reconciled says what Reconcile did, for the elected record.
type Reconciled struct {
	// Sequence is the stream's last sequence once the folder and the
	// stream agree: the number of events.jsonl's lines.
	Sequence uint64
	// Fetched is how many lines came from the hub (another host led the
	// root, or this one lost them in a crash); Published how many the hub
	// had not (a root's first election on the hub, or lines written
	// without it).
	Fetched, Published int
	// Restored is how many documents came from the hub.
	Restored int
}

// Reconcile brings root's folder and the hub into agreement before the
// controller opens its ledger, and arms Append. If the stream holds
// lines past the folder's, they are appended to events.jsonl and the
// documents are replaced with the hub's (another host led the root since
// this folder was written); if the folder holds lines past the stream's,
// they are published (the root's history moves onto the hub). Then the
// folder's documents are published, which fences any earlier leader's
// document writes. A folder whose lines differ from the stream's is
// refused with a *DivergedError and nothing is changed.
func (l *Leader) Reconcile(ctx context.Context, root string) (Reconciled, error) {
	var r Reconciled
	f, err := mirror.OpenFolder(root)
	if err != nil {
		return r, err
	}
	local, n, err := f.Lines()
	if err != nil {
		return r, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	last, err := mirror.LastSequence(ctx, l.stream)
	if err != nil {
		return r, err
	}
	// Compare the common part, message by message.
	common := min(uint64(n), last)
	rest := local
	err = mirror.ReadLines(ctx, l.stream, 1, common, func(lines []byte, upto uint64) error {
		if !bytes.HasPrefix(rest, lines) {
			return &DivergedError{Root: l.names.ID(), Line: firstDiff(rest, lines, upto)}
		}
		rest = rest[len(lines):]
		return nil
	})
	if err != nil {
		return r, err
	}
	switch {
	case last > uint64(n):
		err = mirror.ReadLines(ctx, l.stream, uint64(n)+1, last, func(lines []byte, _ uint64) error {
			r.Fetched += bytes.Count(lines, []byte{'\n'})
			return f.Append(lines)
		})
		if err != nil {
			return r, fmt.Errorf("catch the folder up from the hub: %w", err)
		}
		revs, err := mirror.RestoreDocuments(ctx, l.docs, f)
		if err != nil {
			return r, fmt.Errorf("restore the documents from the hub: %w", err)
		}
		r.Restored = len(revs)
		l.last = last
	case uint64(n) > last:
		l.last = last
		msgs := splitLines(rest)
		for len(msgs) > 0 {
			held, err := l.publishLocked(msgs)
			msgs = msgs[held:]
			r.Published += held
			if err != nil && (errors.Is(err, ErrDeposed) || !backoff.Sleep(ctx, retryBase)) {
				return r, fmt.Errorf("publish the folder's lines to the hub: %w", err)
			}
		}
	default:
		l.last = last
	}
	l.armed = true
	r.Sequence = l.last
	return r, l.claimDocuments(ctx, f)
}

// claimDocuments publishes the folder's documents with the bucket's
// current revisions. The caller holds mu.
func (l *Leader) claimDocuments(ctx context.Context, f *mirror.Folder) error {
	for _, name := range Documents {
		data, err := f.ReadDocument(name)
		if err != nil {
			return err
		}
		if data == nil {
			continue
		}
		var rev uint64
		if e, err := l.docs.Get(ctx, name); err == nil {
			rev, err = l.docs.Update(ctx, name, data, e.Revision())
			if err != nil {
				return fmt.Errorf("publish %s: %w", name, err)
			}
		} else if rev, err = l.docs.Create(ctx, name, data); err != nil {
			return fmt.Errorf("publish %s: %w", name, err)
		}
		l.docRev[name] = rev
	}
	return nil
}

// firstDiff is the number of the first line where the folder (rest,
// from the batch's first line on) and the batch ending at message upto
// differ.
func firstDiff(rest, batch []byte, upto uint64) int {
	lines := splitLines(batch)
	first := int(upto) - len(lines) + 1
	for i, m := range lines {
		if !bytes.HasPrefix(rest, m) {
			return first + i
		}
		rest = rest[len(m):]
	}
	return first + len(lines)
}
