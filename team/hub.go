package team

import (
	"net/url"
	"strconv"
)

// checkHub checks the nats backend's settings: a hub URL a NATS client
// dials (nats://, tls://) and a root id. The id's form is the hub's rule
// (hub/naming), checked when the outbox opens: team stays free of the
// hub's packages, and so does the window, which reads workflow.toml.
func checkHub(o Outbox, add func(*Error)) {
	u, err := url.Parse(o.URL)
	if o.URL == "" || err != nil || (u.Scheme != "nats" && u.Scheme != "tls") || u.Host == "" {
		add(&Error{Code: CodeHub, Key: "outbox.url", Value: strconv.Quote(o.URL), Want: BackendNATS})
	}
	if o.Root == "" {
		add(&Error{Code: CodeHub, Key: "outbox.root", Value: strconv.Quote(o.Root), Want: BackendNATS})
	}
}
