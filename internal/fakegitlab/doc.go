// Package fakegitlab is a stand-in of GitLab's REST API v4 for tests:
// the issues, notes, labels and assignees of projects, over httptest,
// answering as gitlab.com does: projects addressed by their URL-encoded
// path, the token in PRIVATE-TOKEN, issues numbered per project by iid,
// labels as plain strings, system notes for label and state changes,
// pagination with Link and X-Next-Page headers, ETags with 304s that
// cost no rate limit, 429 rate limits with Retry-After and
// RateLimit-Reset, injected 5xx, and eventual consistency (a new note
// missing from the first listing after it was posted). It records every
// request, so a test can count what an idle team costs and look for the
// token where it must not be.
package fakegitlab
