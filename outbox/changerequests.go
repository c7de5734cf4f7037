package outbox

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ChangeRequests are the pull requests (GitHub) or merge requests
// (GitLab) of one repository: what a change accepted with deliver =
// "pr" becomes, whichever forge holds the repository. The controller
// and status speak only this interface.
type ChangeRequests interface {
	// Find returns the change request whose source is branch: an open
	// one, else one already merged, else nil.
	Find(ctx context.Context, branch string) (*PullRequest, error)
	// Ensure returns the change request of n.Head, opening it when there
	// is none (created says whether this call did).
	Ensure(ctx context.Context, n NewPull) (pr *PullRequest, created bool, err error)
	// Checks is the CI status of commit ref: "success", "failure",
	// "pending", or "" when nothing reported one.
	Checks(ctx context.Context, ref string) (string, error)
	// ReviewComments are the people's review comments on change request
	// number: comments on lines of the diff, review bodies and general
	// comments, without daokit's own.
	ReviewComments(ctx context.Context, number int64) ([]ReviewComment, error)
}

// OpenChangeRequests returns the change requests of cfg.Repo on the
// forge cfg.Service names ("github" or "", "gitlab").
func OpenChangeRequests(cfg PullRequestsConfig) (ChangeRequests, error) {
	if cfg.Service == GitLabActor {
		return NewMergeRequests(cfg)
	}
	return NewPullRequests(cfg)
}

// ForgeTokenFrom is the token of service ("github" or "", "gitlab") in
// the environment getenv reads.
func ForgeTokenFrom(service string, getenv func(string) string) string {
	if service == GitLabActor {
		return GitLabTokenFrom(getenv)
	}
	return TokenFrom(getenv)
}

// ReviewComment is one thing a person said in a change request's
// review: on line Line of file Path (both unset for a review's body or
// a general comment).
type ReviewComment struct {
	ID     int64
	Author string
	Path   string
	Line   int
	Body   string
}

// Bounds of what review comments hand to the next iteration: the coder
// reads findings, not a whole discussion.
const (
	// MaxReviewFindings caps how many comments become findings.
	MaxReviewFindings = 20
	// maxFindingRunes caps one comment's text.
	maxFindingRunes = 500
	// maxReviewPages caps the pages one listing reads (100 a page).
	maxReviewPages = 10
)

// Finding is the comment as a finding: "path:line: text (@author)", or
// "text (@author)" when it is on no line; on one line, cut at
// maxFindingRunes.
func (c ReviewComment) Finding() string {
	text := strings.Join(strings.Fields(c.Body), " ")
	if utf8.RuneCountInString(text) > maxFindingRunes {
		text = string([]rune(text)[:maxFindingRunes]) + "…"
	}
	if c.Author != "" {
		text += " (@" + c.Author + ")"
	}
	switch {
	case c.Path != "" && c.Line > 0:
		return c.Path + ":" + strconv.Itoa(c.Line) + ": " + text
	case c.Path != "":
		return c.Path + ": " + text
	}
	return text
}

// ReviewFindings turns review comments into at most MaxReviewFindings
// findings, in an order that depends only on the comments: those on a
// line by file, line and id, then the others by id. Empty comments and
// daokit's own (its marker) are left out.
func ReviewFindings(cs []ReviewComment) []string {
	var kept []ReviewComment
	for _, c := range cs {
		if _, _, own := splitMarker(c.Body); own || strings.TrimSpace(c.Body) == "" {
			continue
		}
		kept = append(kept, c)
	}
	slices.SortStableFunc(kept, func(a, b ReviewComment) int {
		if (a.Path == "") != (b.Path == "") {
			if a.Path == "" {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(a.ID, b.ID))
	})
	out := make([]string, 0, min(len(kept), MaxReviewFindings))
	for _, c := range kept[:min(len(kept), MaxReviewFindings)] {
		out = append(out, c.Finding())
	}
	return out
}

// ensureOnce is Ensure on either forge: the change request of head is
// looked up first, and opened (open) only when there is none. A refusal
// with status exists (the forge's "one already exists") means one was
// opened by a request whose answer never came and was not listed yet:
// it is looked up again instead of failing.
func ensureOnce(ctx context.Context, crs ChangeRequests, head string, exists int, open func() (*PullRequest, error)) (*PullRequest, bool, error) {
	if pr, err := crs.Find(ctx, head); err != nil || pr != nil {
		return pr, false, err
	}
	pr, err := open()
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == exists {
		if found, ferr := crs.Find(ctx, head); ferr == nil && found != nil {
			return found, false, nil
		}
	}
	if err != nil {
		return nil, false, err
	}
	return pr, true, nil
}

// eachPage gives f the body of every page of a listing from first, at
// most maxReviewPages of them.
func eachPage(ctx context.Context, c *apiClient, first string, f func([]byte) error) error {
	next := first
	for i := 0; next != "" && i < maxReviewPages; i++ {
		r, err := c.do(ctx, http.MethodGet, next, nil, "")
		if err != nil {
			return err
		}
		if err := f(r.Body); err != nil {
			return err
		}
		next = r.Next
	}
	return nil
}
