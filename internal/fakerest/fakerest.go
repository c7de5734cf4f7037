// Package fakerest is what the REST stand-ins of the test tree
// (fakegithub, fakegitlab) share: the record of every request, the
// injected faults, and answers with ETags that a matching If-None-Match
// turns into a free 304. Log holds no lock: Core, which each stand-in
// embeds, guards it with the lock over the stand-in's whole state.
package fakerest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

// Request is one request as a stand-in received it.
type Request struct {
	Method string
	// Path is the path under the API root; Query its query string.
	Path   string
	Query  string
	Header http.Header
	Body   string
	Status int
}

// Fault is an injected answer: the next Times requests whose method
// and path match (empty matches any) are answered with Status, Header
// and Body instead.
type Fault struct {
	Method string
	// PathSuffix matches the end of the path.
	PathSuffix string
	Status     int
	Header     map[string]string
	Body       string
	Times      int
	// Hold, when set, holds the matching request until Hold is closed,
	// then answers it as usual (Status and the rest are unused): the
	// service did what was asked, whether or not the client is still
	// there to hear it. Holding is closed when the request arrives.
	Hold, Holding chan struct{}
}

// Log is the requests a stand-in answered and the faults queued.
type Log struct {
	requests []Request
	faults   []*Fault
	// charged counts requests that cost rate limit (not the 304s).
	charged int
}

// Inject queues a fault.
func (l *Log) Inject(f Fault) {
	if f.Times <= 0 {
		f.Times = 1
	}
	l.faults = append(l.faults, &f)
}

// Requests returns every request so far.
func (l *Log) Requests() []Request { return slices.Clone(l.requests) }

// Charged counts the requests that cost rate limit: all but the 304s.
func (l *Log) Charged() int { return l.charged }

// Record keeps rec, answered with status.
func (l *Log) Record(rec Request, status int) {
	rec.Status = status
	if status != http.StatusNotModified {
		l.charged++
	}
	l.requests = append(l.requests, rec)
}

// Fault takes the next fault matching method and path (nil if none).
func (l *Log) Fault(method, path string) *Fault {
	for i, f := range l.faults {
		if (f.Method == "" || f.Method == method) && strings.HasSuffix(path, f.PathSuffix) {
			f.Times--
			if f.Times <= 0 {
				l.faults = append(l.faults[:i], l.faults[i+1:]...)
			}
			return f
		}
	}
	return nil
}

// Answer writes f's status, headers and body.
func (f *Fault) Answer(w http.ResponseWriter) {
	for k, v := range f.Header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(f.Status)
	_, _ = w.Write([]byte(f.Body))
}

// Recorder remembers the status a handler wrote.
type Recorder struct {
	http.ResponseWriter
	Status int
}

// WriteHeader keeps code and writes it.
func (r *Recorder) WriteHeader(code int) {
	r.Status = code
	r.ResponseWriter.WriteHeader(code)
}

// Reply writes v with an ETag; a GET whose If-None-Match holds the same
// ETag gets a 304 with no body.
func Reply(w http.ResponseWriter, req *http.Request, status int, v any) {
	data, _ := json.Marshal(v)
	sum := sha256.Sum256(data)
	etag := `W/"` + hex.EncodeToString(sum[:16]) + `"`
	w.Header().Set("ETag", etag)
	if req.Method == http.MethodGet && req.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.WriteHeader(status)
	_, _ = w.Write(data)
}
