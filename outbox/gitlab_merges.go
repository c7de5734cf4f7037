package outbox

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// MergeRequests opens merge requests on one GitLab project, through the
// same REST client as the GitLab outbox (the token in PRIVATE-TOKEN and
// nowhere else, rate limits waited out, 5xx retried). A merge request
// is reported as a PullRequest: Number is its iid, HTMLURL its web_url,
// State "open" while GitLab says "opened".
type MergeRequests struct{ c *apiClient }

// NewMergeRequests checks cfg and returns the project's merge requests
// (ErrBadRepo, ErrNoToken).
func NewMergeRequests(cfg PullRequestsConfig) (*MergeRequests, error) {
	if !ValidProject(cfg.Repo) {
		return nil, fmt.Errorf("%w: %q", ErrBadRepo, cfg.Repo)
	}
	if cfg.Token == "" {
		return nil, ErrNoToken
	}
	c := newGitLabClient(ForgeConfig{Repo: cfg.Repo, APIURL: cfg.APIURL, Token: cfg.Token, HTTP: cfg.HTTP})
	c.maxBlock = cfg.MaxBlock
	if c.maxBlock <= 0 {
		c.maxBlock = time.Minute
	}
	return &MergeRequests{c: c}, nil
}

// glMergeRequest is a merge request as GitLab answers it.
type glMergeRequest struct {
	IID          int64  `json:"iid"`
	Title        string `json:"title"`
	State        string `json:"state"`
	SourceBranch string `json:"source_branch"`
	TargetBranch string `json:"target_branch"`
	SHA          string `json:"sha"`
	WebURL       string `json:"web_url"`
}

func (m glMergeRequest) pull() *PullRequest {
	pr := &PullRequest{Number: m.IID, HTMLURL: m.WebURL, State: m.State, Title: m.Title, Merged: m.State == "merged"}
	if m.State == "opened" {
		pr.State = "open"
	}
	pr.Head.Ref, pr.Head.SHA, pr.Base.Ref = m.SourceBranch, m.SHA, m.TargetBranch
	return pr
}

// Find returns the merge request whose source is branch: an open one,
// else one already merged (the change was delivered), else nil.
func (m *MergeRequests) Find(ctx context.Context, branch string) (*PullRequest, error) {
	q := url.Values{"source_branch": {branch}, "state": {"all"}, "per_page": {"100"}}
	var list []glMergeRequest
	if err := m.c.getJSON(ctx, m.c.repoPath("/merge_requests?"+q.Encode()), &list); err != nil {
		return nil, err
	}
	var merged *PullRequest
	for _, mr := range list {
		if mr.SourceBranch != branch {
			continue
		}
		if mr.State == "opened" {
			return mr.pull(), nil
		}
		if mr.State == "merged" && merged == nil {
			merged = mr.pull()
		}
	}
	return merged, nil
}

// Ensure returns the merge request of n.Head, opening it when there is
// none; a 409 (GitLab: "Another open merge request already exists for
// this source branch") means one opened by a request whose answer was
// lost, and it is found instead.
func (m *MergeRequests) Ensure(ctx context.Context, n NewPull) (*PullRequest, bool, error) {
	return ensureOnce(ctx, m, n.Head, http.StatusConflict, func() (*PullRequest, error) {
		var out glMergeRequest
		err := m.c.sendJSON(ctx, http.MethodPost, m.c.repoPath("/merge_requests"),
			map[string]any{"title": n.Title, "description": n.Body, "source_branch": n.Head, "target_branch": n.Base}, &out)
		return out.pull(), err
	})
}

// Checks is the status of the newest pipeline of commit ref, in
// GitHub's words: success; failure for failed or canceled; pending
// while it is created, waiting, running or manual; "" when no pipeline
// ran (none, or skipped).
func (m *MergeRequests) Checks(ctx context.Context, ref string) (string, error) {
	q := url.Values{"sha": {ref}, "per_page": {"1"}, "order_by": {"id"}, "sort": {"desc"}}
	var list []struct {
		Status string `json:"status"`
	}
	if err := m.c.getJSON(ctx, m.c.repoPath("/pipelines?"+q.Encode()), &list); err != nil {
		return "", err
	}
	if len(list) == 0 {
		return "", nil
	}
	switch list[0].Status {
	case "success":
		return "success", nil
	case "failed", "canceled":
		return "failure", nil
	case "skipped":
		return "", nil
	}
	return "pending", nil
}

// glDiscussion is a thread of a merge request: its notes, the first of
// which may sit on a line of the diff.
type glDiscussion struct {
	Notes []struct {
		ID       int64  `json:"id"`
		Type     string `json:"type"`
		Body     string `json:"body"`
		System   bool   `json:"system"`
		Author   glUser `json:"author"`
		Position *struct {
			NewPath string `json:"new_path"`
			NewLine *int   `json:"new_line"`
			OldPath string `json:"old_path"`
			OldLine *int   `json:"old_line"`
		} `json:"position"`
	} `json:"notes"`
}

// ReviewComments reads merge request number's discussions: every note
// people wrote (GitLab's system notes, "added 1 commit", are not), a
// note on the diff with its file and line (the new side's, else the
// old side's for a removed line); replies in a thread keep the thread's
// place.
func (m *MergeRequests) ReviewComments(ctx context.Context, number int64) ([]ReviewComment, error) {
	first := m.c.repoPath("/merge_requests/" + strconv.FormatInt(number, 10) + "/discussions?per_page=100")
	var out []ReviewComment
	err := eachPage(ctx, m.c, first, func(body []byte) error {
		var page []glDiscussion
		if err := json.Unmarshal(body, &page); err != nil {
			return err
		}
		for _, d := range page {
			path, line := "", 0
			for _, n := range d.Notes {
				if p := n.Position; p != nil && path == "" {
					path = p.NewPath
					if p.NewLine != nil {
						line = *p.NewLine
					} else if p.OldLine != nil {
						path, line = p.OldPath, *p.OldLine
					}
				}
				if !n.System {
					out = append(out, ReviewComment{ID: n.ID, Author: n.Author.Username, Path: path, Line: line, Body: n.Body})
				}
			}
		}
		return nil
	})
	return out, err
}
