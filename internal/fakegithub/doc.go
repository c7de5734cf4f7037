// Package fakegithub is a stand-in of GitHub's REST API for tests: the
// issues, comments, labels and assignees of repositories, over
// httptest, answering as the real service does (shapes checked against
// @octokit/fixtures' recorded traffic): pagination with Link headers,
// ETags with 304s that cost no rate limit, 403/429 rate limits with
// Retry-After or X-RateLimit-Reset, injected 5xx, and eventual
// consistency (a new comment missing from the first listing after it
// was posted). It records every request, so a test can count what an
// idle team costs and look for the token where it must not be.
package fakegithub
