package outbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// APIError is a refused request of the issue tracker's API. It never
// holds the token: only the service, the method, the path and the
// service's message.
type APIError struct {
	// Service is "github" or "gitlab".
	Service string
	Status  int
	Method  string
	Path    string
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s: %s %s: %d %s", e.Service, e.Method, e.Path, e.Status, e.Message)
}

// RateWait is a wait the API imposed: until when, and why ("primary"
// when the quota is spent, "secondary" for GitHub's abuse limits or a
// bare 429, "retry-after" when it named the wait itself).
type RateWait struct {
	Until  time.Time `json:"until"`
	Reason string    `json:"reason"`
	// Service is who imposed it: "github" (also when empty, as a wait
	// written before GitLab was a backend) or "gitlab".
	Service string `json:"service,omitempty"`
}

// ServiceName is the name people know the service by, for messages.
func (w RateWait) ServiceName() string {
	if w.Service == GitLabActor {
		return "GitLab"
	}
	return "GitHub"
}

// ErrRateLimited matches a *RateLimitedError.
var ErrRateLimited = errors.New("outbox: rate limited by the issue tracker")

// RateLimitedError is a write or read not sent because the API imposed a
// wait longer than the backend blocks for: the caller tries again after
// Wait.Until (and shows it meanwhile).
type RateLimitedError struct{ Wait RateWait }

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("outbox: rate limited by the issue tracker (%s) until %s", e.Wait.Reason, e.Wait.Until.UTC().Format(time.RFC3339))
}

// Is makes errors.Is(err, ErrRateLimited) true.
func (e *RateLimitedError) Is(target error) bool { return target == ErrRateLimited }

// apiClient speaks a REST API (GitHub's or GitLab's) for one
// repository: the token on every request and nowhere else, the rate
// limits waited out, 5xx retried with backoff. What differs between
// the services is the dialect.
type apiClient struct {
	dialect
	base  string
	token string
	hc    *http.Client
	// sleep waits d or until ctx ends (tests record instead of sleeping).
	sleep func(ctx context.Context, d time.Duration) error
	// backoff is the first wait after a 5xx or a transport error; it
	// doubles up to 8 tries.
	backoff time.Duration
	// onWait is told of every imposed wait before it starts.
	onWait func(RateWait)
	// tries bounds the tries of one request (maxTries by default).
	tries int
	// maxBlock bounds how long a request waits out an imposed wait
	// (0: no bound); past it the request fails with *RateLimitedError
	// without being sent, so a Lead keeps its heartbeat and retries.
	maxBlock time.Duration

	mu   sync.Mutex
	wait RateWait
	// remaining and reset are the quota the API last reported
	// (remaining < 0: not reported yet).
	remaining int
	reset     time.Time
}

// dialect is what a service's REST API does its own way.
type dialect struct {
	// service names it in errors ("github", "gitlab").
	service string
	// root is the API path of the repository (or project).
	root string
	// header sets the headers of every request, the token among them
	// (token is "" for none).
	header func(h http.Header, token string)
}

func newAPIClient(d dialect, base, token string, hc *http.Client) *apiClient {
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	return &apiClient{dialect: d, base: strings.TrimRight(base, "/"), token: token, hc: hc, sleep: sleepCtx, backoff: time.Second, tries: maxTries, remaining: -1}
}

// maxTries bounds the tries of one request (rate-limit waits and 5xx).
const maxTries = 8

// apiResponse is one answer: status, body, the headers the backend reads.
type apiResponse struct {
	Status int
	Body   []byte
	ETag   string
	Next   string
}

// do sends one request (path is relative to the API root, or an
// absolute next-page URL the API gave) and waits out rate limits and 5xx.
// A 304 is an answer (Status 304), not an error.
func (c *apiClient) do(ctx context.Context, method, path string, in any, etag string) (apiResponse, error) {
	var payload []byte
	if in != nil {
		var err error
		if payload, err = json.Marshal(in); err != nil {
			return apiResponse{}, err
		}
	}
	target := path
	if !strings.HasPrefix(path, "http://") && !strings.HasPrefix(path, "https://") {
		target = c.base + path
	}
	delay := c.backoff
	for try := 1; ; try++ {
		if err := c.waitImposed(ctx); err != nil {
			return apiResponse{}, err
		}
		req, err := http.NewRequestWithContext(ctx, method, target, bytes.NewReader(payload))
		if err != nil {
			return apiResponse{}, err
		}
		req.Header.Set("User-Agent", "daokit")
		c.header(req.Header, c.token)
		if in != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		resp, err := c.hc.Do(req)
		if err != nil {
			if ctx.Err() != nil || try >= c.tries {
				return apiResponse{}, fmt.Errorf("%s: %s %s: %w", c.service, method, pathOnly(target), scrub(err))
			}
			if err := c.sleep(ctx, delay); err != nil {
				return apiResponse{}, err
			}
			delay *= 2
			continue
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		resp.Body.Close()
		if err != nil {
			return apiResponse{}, err
		}
		out := apiResponse{Status: resp.StatusCode, Body: body, ETag: resp.Header.Get("ETag"), Next: nextPage(resp.Header, target)}
		c.noteQuota(resp.Header)
		if w, ok := c.imposed(resp, body); ok && try < c.tries {
			c.setWait(w)
			continue
		}
		switch {
		case resp.StatusCode == http.StatusNotModified, resp.StatusCode < 300:
			c.clearWait()
			return out, nil
		case resp.StatusCode >= 500 && try < c.tries:
			if err := c.sleep(ctx, delay); err != nil {
				return apiResponse{}, err
			}
			delay *= 2
			continue
		}
		var m struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(body, &m)
		return out, &APIError{Service: c.service, Status: resp.StatusCode, Method: method, Path: pathOnly(target), Message: m.Message}
	}
}

// scrub drops the URL from a transport error (it holds no token, but a
// next-page URL may hold query values nobody needs in a log).
func scrub(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func pathOnly(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return "?"
	}
	return u.Path
}

// imposed reads a rate-limit answer: 429, or 403 with Retry-After, an
// exhausted quota or GitHub's secondary-limit message (GitLab answers
// 429 with Retry-After and RateLimit-Reset). A 403 without these is a
// permission error, returned as it is.
func (c *apiClient) imposed(resp *http.Response, body []byte) (RateWait, bool) {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return RateWait{}, false
	}
	now := time.Now()
	if s := resp.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n >= 0 {
			return RateWait{Until: now.Add(time.Duration(n) * time.Second), Reason: "retry-after"}, true
		}
		if t, err := http.ParseTime(s); err == nil {
			return RateWait{Until: t, Reason: "retry-after"}, true
		}
	}
	if quotaHeader(resp.Header, "Remaining") == "0" {
		if n, err := strconv.ParseInt(quotaHeader(resp.Header, "Reset"), 10, 64); err == nil {
			return RateWait{Until: time.Unix(n, 0), Reason: "primary"}, true
		}
	}
	if bytes.Contains(bytes.ToLower(body), []byte("secondary rate limit")) || resp.StatusCode == http.StatusTooManyRequests {
		// GitHub: "wait at least one minute before retrying".
		return RateWait{Until: now.Add(time.Minute), Reason: "secondary"}, true
	}
	return RateWait{}, false
}

// quotaHeader is the rate-limit header of that name: GitHub's
// X-RateLimit-<name>, else GitLab's RateLimit-<name>.
func quotaHeader(h http.Header, name string) string {
	if v := h.Get("X-RateLimit-" + name); v != "" {
		return v
	}
	return h.Get("RateLimit-" + name)
}

// noteQuota: a success that spent the last request of the quota makes
// the next request wait for the reset instead of being refused.
func (c *apiClient) noteQuota(h http.Header) {
	left, err1 := strconv.Atoi(quotaHeader(h, "Remaining"))
	n, err2 := strconv.ParseInt(quotaHeader(h, "Reset"), 10, 64)
	if err1 != nil || err2 != nil {
		return
	}
	c.mu.Lock()
	c.remaining, c.reset = left, time.Unix(n, 0)
	c.mu.Unlock()
	if left == 0 {
		c.setWait(RateWait{Until: time.Unix(n, 0), Reason: "primary"})
	}
}

// reserve makes sure the quota holds n more requests: a change that
// would run out of it half done waits for the reset before its first
// write instead (*RateLimitedError when that is longer than maxBlock).
func (c *apiClient) reserve(ctx context.Context, n int) error {
	c.mu.Lock()
	short := c.remaining >= 0 && c.remaining < n && time.Until(c.reset) > 0
	reset := c.reset
	c.mu.Unlock()
	if !short {
		return nil
	}
	c.setWait(RateWait{Until: reset, Reason: "primary"})
	return c.waitImposed(ctx)
}

func (c *apiClient) setWait(w RateWait) {
	w.Service = c.service
	c.mu.Lock()
	c.wait = w
	c.mu.Unlock()
	if c.onWait != nil {
		c.onWait(w)
	}
}

func (c *apiClient) clearWait() {
	c.mu.Lock()
	had := c.wait.Reason != ""
	c.wait = RateWait{}
	c.mu.Unlock()
	if had && c.onWait != nil {
		c.onWait(RateWait{})
	}
}

// Wait is the wait in force (zero when none).
func (c *apiClient) Wait() RateWait {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.wait
}

func (c *apiClient) waitImposed(ctx context.Context) error {
	w := c.Wait()
	d := time.Until(w.Until)
	if d <= 0 {
		return nil
	}
	if c.maxBlock > 0 && d > c.maxBlock {
		return &RateLimitedError{Wait: w}
	}
	if err := c.sleep(ctx, d); err != nil {
		return err
	}
	// Waited out: the next request goes; what it answers sets or
	// clears the wait that is shown.
	c.mu.Lock()
	if c.wait == w {
		c.wait.Until = time.Time{}
	}
	c.mu.Unlock()
	return nil
}

// nextLink reads rel="next" from a Link header.
func nextLink(h string) string {
	for _, part := range strings.Split(h, ",") {
		seg := strings.Split(part, ";")
		if len(seg) < 2 {
			continue
		}
		for _, p := range seg[1:] {
			if strings.TrimSpace(p) == `rel="next"` {
				return strings.Trim(strings.TrimSpace(seg[0]), "<>")
			}
		}
	}
	return ""
}

// nextPage is the URL of the next page: the Link header's rel="next"
// (GitHub, GitLab), else GitLab's X-Next-Page set on target's query
// (GitLab leaves Link out of large listings).
func nextPage(h http.Header, target string) string {
	if next := nextLink(h.Get("Link")); next != "" {
		return next
	}
	page := h.Get("X-Next-Page")
	if page == "" {
		return ""
	}
	u, err := url.Parse(target)
	if err != nil {
		return ""
	}
	q := u.Query()
	q.Set("page", page)
	u.RawQuery = q.Encode()
	return u.String()
}

// repoPath is the API path of the repository, with rest appended.
func (c *apiClient) repoPath(rest string) string {
	return c.root + rest
}

// issuePath is the path of issue n, then rest: the same on GitHub and
// GitLab (where n is the issue's iid).
func (c *apiClient) issuePath(n int64, rest string) string {
	return c.repoPath("/issues/" + strconv.FormatInt(n, 10) + rest)
}

// getJSON GETs path and decodes the answer into out.
func (c *apiClient) getJSON(ctx context.Context, path string, out any) error {
	r, err := c.do(ctx, http.MethodGet, path, nil, "")
	if err != nil {
		return err
	}
	return json.Unmarshal(r.Body, out)
}

// sendJSON sends in and decodes the answer into out (when not nil).
func (c *apiClient) sendJSON(ctx context.Context, method, path string, in, out any) error {
	r, err := c.do(ctx, method, path, in, "")
	if err != nil {
		return err
	}
	if out == nil || len(r.Body) == 0 {
		return nil
	}
	return json.Unmarshal(r.Body, out)
}
