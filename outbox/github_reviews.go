package outbox

import (
	"context"
	"encoding/json"
	"strconv"
)

// ghReviewComment is a comment on a line of a pull request's diff
// (pulls/N/comments); line is null once the line is outdated, and
// original_line still names it.
type ghReviewComment struct {
	ID           int64  `json:"id"`
	Path         string `json:"path"`
	Line         *int   `json:"line"`
	OriginalLine *int   `json:"original_line"`
	Body         string `json:"body"`
	User         ghUser `json:"user"`
}

// ghReview is a submitted review (pulls/N/reviews): its body is the
// reviewer's summary, often empty.
type ghReview struct {
	ID    int64  `json:"id"`
	User  ghUser `json:"user"`
	Body  string `json:"body"`
	State string `json:"state"`
}

// ReviewComments reads pull request number's line comments and review
// bodies (a pending review is its author's draft, a dismissed one was
// withdrawn: neither counts).
func (p *PullRequests) ReviewComments(ctx context.Context, number int64) ([]ReviewComment, error) {
	base := p.c.repoPath("/pulls/" + strconv.FormatInt(number, 10))
	var out []ReviewComment
	err := eachPage(ctx, p.c, base+"/comments?per_page=100", func(body []byte) error {
		var page []ghReviewComment
		if err := json.Unmarshal(body, &page); err != nil {
			return err
		}
		for _, c := range page {
			rc := ReviewComment{ID: c.ID, Author: c.User.Login, Path: c.Path, Body: c.Body}
			if c.Line != nil {
				rc.Line = *c.Line
			} else if c.OriginalLine != nil {
				rc.Line = *c.OriginalLine
			}
			out = append(out, rc)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = eachPage(ctx, p.c, base+"/reviews?per_page=100", func(body []byte) error {
		var page []ghReview
		if err := json.Unmarshal(body, &page); err != nil {
			return err
		}
		for _, r := range page {
			if r.State != "PENDING" && r.State != "DISMISSED" {
				out = append(out, ReviewComment{ID: r.ID, Author: r.User.Login, Body: r.Body})
			}
		}
		return nil
	})
	return out, err
}
