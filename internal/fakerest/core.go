package fakerest

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// Core is the part of a stand-in's Server that fakegithub and fakegitlab
// share: the lock over all of its state, the Log, the change clock and the
// HTTP server. A Server embeds it, so Inject, Requests, Charged and Close
// are the same methods on both.
type Core struct {
	mu    sync.Mutex
	log   Log
	clock time.Time
	srv   *httptest.Server
}

// Start serves h and returns the server's root URL. The clock starts at
// the same instant on every stand-in, so tests read the same timestamps.
func (c *Core) Start(h http.HandlerFunc) string {
	c.clock = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.srv = httptest.NewServer(h)
	return c.srv.URL
}

// Close stops the stand-in.
func (c *Core) Close() { c.srv.Close() }

// Lock takes the stand-in's lock, which guards the Log, the clock and the
// stand-in's own state alike.
func (c *Core) Lock() { c.mu.Lock() }

// Unlock releases the lock Lock took.
func (c *Core) Unlock() { c.mu.Unlock() }

// Inject queues a fault.
func (c *Core) Inject(f Fault) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log.Inject(f)
}

// Requests returns every request so far.
func (c *Core) Requests() []Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.log.Requests()
}

// Charged counts the requests that cost rate limit: all but the 304s.
func (c *Core) Charged() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.log.Charged()
}

// Log is the request log, for the stand-in's handler, which holds the
// lock while it uses it.
func (c *Core) Log() *Log { return &c.log }

// Now is the stand-in's clock, advanced a second per change so that
// updated timestamps order changes and since-filters are exact. The
// caller holds the lock.
func (c *Core) Now() time.Time {
	c.clock = c.clock.Add(time.Second)
	return c.clock
}

// Faulted applies the fault queued for method and path, if any, with the
// lock held: a Hold releases the lock until it is closed, then the request
// goes on as usual; any other fault is answered on w, and Faulted reports
// true, the request done.
func (c *Core) Faulted(w http.ResponseWriter, method, path string) bool {
	f := c.log.Fault(method, path)
	switch {
	case f == nil:
		return false
	case f.Hold != nil:
		c.mu.Unlock()
		if f.Holding != nil {
			close(f.Holding)
		}
		<-f.Hold
		c.mu.Lock()
		return false
	default:
		f.Answer(w)
		return true
	}
}
