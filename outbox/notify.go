package outbox

import (
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// notifier turns writes to the database files (the WAL grows on every
// commit) into a broadcast: subscribe returns a channel that is closed at
// the next change. Without fsnotify (an unsupported file system) the
// channel never closes and Wait falls back to its bounded interval.
type notifier struct {
	mu   sync.Mutex
	ch   chan struct{}
	w    *fsnotify.Watcher
	done chan struct{}
	// last is when the last change was seen.
	last time.Time
}

// recentWrite is how long after a change a Wait that finds no new event
// still looks again (settleLooks): the change may be a commit not yet
// visible, whose notification came before the Wait subscribed.
const recentWrite = 250 * time.Millisecond

// recent reports whether a change was seen within recentWrite.
func (n *notifier) recent() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return time.Since(n.last) < recentWrite
}

func newNotifier(dbPath string) *notifier {
	n := &notifier{ch: make(chan struct{}), done: make(chan struct{})}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		close(n.done)
		return n
	}
	if err := w.Add(filepath.Dir(dbPath)); err != nil {
		w.Close()
		close(n.done)
		return n
	}
	n.w = w
	base := filepath.Base(dbPath)
	go n.loop(base)
	return n
}

func (n *notifier) loop(base string) {
	defer close(n.done)
	for {
		select {
		case ev, ok := <-n.w.Events:
			if !ok {
				return
			}
			if strings.HasPrefix(filepath.Base(ev.Name), base) && ev.Op&(fsnotify.Write|fsnotify.Create) != 0 {
				n.fire()
			}
		case _, ok := <-n.w.Errors:
			if !ok {
				return
			}
			// A lost notification is covered by the wake interval.
			n.fire()
		}
	}
}

func (n *notifier) fire() {
	n.mu.Lock()
	close(n.ch)
	n.ch = make(chan struct{})
	n.last = time.Now()
	n.mu.Unlock()
}

func (n *notifier) subscribe() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.ch
}

func (n *notifier) close() {
	if n.w != nil {
		n.w.Close()
	}
	<-n.done
}
