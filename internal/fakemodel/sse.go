package fakemodel

import (
	"fmt"
	"net/http"
)

// sse writes server-sent events and flushes each one, as the real APIs
// stream them.
type sse struct {
	w http.ResponseWriter
}

func (e sse) send(event string, data any) {
	fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", event, mustJSON(data))
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}
