package lead

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/daokit/daokit/gitwork"
	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/team"
)

// prRemote is the git remote of the role's repository an accepted
// issue's branch is pushed to.
const prRemote = "origin"

// prTimeout bounds one delivery (push and the forge's requests), which
// the Lead's loop waits for; one that runs out is said on the issue, and
// stamping again tries again.
const prTimeout = 2 * time.Minute

// prTrigger is the Trigger of the comment that gives an issue's pull
// request as its evidence: posted once, whatever the Lead's crashes and
// however often the issue is stamped.
func prTrigger(issue int64) string { return "pr:" + strconv.FormatInt(issue, 10) }

// onAcceptedPR delivers the work of an issue this role's Worker did as a
// pull request (a merge request on GitLab) once decision:accepted is
// stamped on it by a person or an accepting Lead, when the role says
// deliver = "pr": what the Worker left in the issue's worktree is
// committed on its branch, the branch is pushed to origin (never
// forced) and the change request of that branch is found or opened on
// the outbox's repository, with the Lead's token; its URL is posted on
// the issue as the Changes: evidence.
//
// Exactly once across a Lead killed at any point: the branch's change
// request is looked up before one is opened (Ensure), and the comment
// carries prTrigger, so a successor that replays the event finds both
// instead of making a second. A delivery the forge refuses is said on
// the issue (the error never holds the token) under a trigger of this
// stamp, so that stamping again tries again; a rate limit is waited
// out as every outbox call's is.
func (l *Lead) onAcceptedPR(ctx context.Context, ev outbox.Event) (*effect, error) {
	if l.o.Workflow.Roles[l.o.Role].Deliver != team.DeliverPR || !l.stampAllowed(ev.Actor) {
		return nil, nil
	}
	is, err := l.ob.Issue(ctx, ev.Issue)
	if err != nil {
		return nil, err
	}
	if !is.HasLabel(roster.LabelAccepted) || is.Assignee != l.actor && !is.HasLabel(roster.To(l.o.Role)) {
		return nil, nil // unstamped since, or another role's work
	}
	tree := roster.WorktreePath(l.o.Workflow.Dir, l.o.Role, is.ID)
	if _, err := os.Stat(tree); err != nil {
		return nil, nil // no Worker ran here: nothing to deliver
	}
	dctx, cancel := context.WithTimeout(ctx, prTimeout)
	defer cancel()
	pr, target, err := l.deliverPR(dctx, is, tree, ev)
	readUpTo := map[string]string{outbox.FieldIssueRef: fmt.Sprintf("#%d", is.ID), outbox.FieldReadUpTo: strconv.FormatInt(ev.ID, 10)}
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case rateLimited(err):
		return nil, err
	case err != nil:
		m := outbox.Mailbox{Text: fmt.Sprintf("%s could not deliver #%d as a %s: %s", l.actor, is.ID, changeRequestName(target.Service),
			firstLine(redact(err, target.Token))), Fields: readUpTo}
		return &effect{change: outbox.Change{Trigger: prTrigger(is.ID) + ":failed:" + strconv.FormatInt(ev.ID, 10),
			Ops: []outbox.Op{{Kind: outbox.OpComment, Issue: is.ID, Body: m.Render()}}}}, nil
	}
	readUpTo[outbox.FieldChanges] = pr.HTMLURL
	m := outbox.Mailbox{Text: fmt.Sprintf("%s delivered #%d as %s %s.", l.actor, is.ID, changeRequestName(target.Service), pr.HTMLURL),
		Fields: readUpTo}
	return &effect{change: outbox.Change{Trigger: prTrigger(is.ID),
		Ops: []outbox.Op{{Kind: outbox.OpComment, Issue: is.ID, Body: m.Render()}}}}, nil
}

// deliverPR commits, pushes and finds or opens the change request of
// issue's branch; target says where (its token only for redaction).
func (l *Lead) deliverPR(ctx context.Context, is outbox.Issue, tree string, ev outbox.Event) (*outbox.PullRequest, outbox.PullRequestsConfig, error) {
	ob := l.o.Workflow.Outbox
	target := outbox.PullRequestsConfig{Service: ob.Backend, Repo: ob.Repo, APIURL: ob.APIURL,
		Token: outbox.ForgeTokenFrom(ob.Backend, os.Getenv)}
	crs, err := outbox.OpenChangeRequests(target)
	if err != nil {
		return nil, target, err
	}
	l.gitMu.Lock()
	base, tip, err := l.preparePR(ctx, is, tree)
	l.gitMu.Unlock()
	if err != nil {
		return nil, target, err
	}
	pr, _, err := crs.Ensure(ctx, outbox.NewPull{Title: fmt.Sprintf("#%d %s", is.ID, is.Title), Head: roster.WorktreeBranch(l.o.Role, is.ID),
		Base: base, Body: l.prBody(is, ev, tip)})
	return pr, target, err
}

// preparePR commits what the Worker left uncommitted on the issue's
// branch (as the Lead does after each attempt) and pushes the branch.
// It returns the base branch the pull request asks to join and the tip
// pushed. Called with l.gitMu held.
func (l *Lead) preparePR(ctx context.Context, is outbox.Issue, tree string) (base, tip string, err error) {
	repo, err := gitwork.Open(ctx, l.o.Workflow.RepoDir(l.o.Role))
	if err != nil {
		return "", "", err
	}
	if base, err = repo.BaseBranch(ctx, ""); err != nil {
		return "", "", err
	}
	wt := gitwork.Worktree{Path: tree, Branch: roster.WorktreeBranch(l.o.Role, is.ID), BaseBranch: base}
	d, err := repo.Prepare(ctx, wt, gitwork.DeliverOptions{CommitMessage: fmt.Sprintf("daokit: #%d %s", is.ID, is.Title)})
	if err != nil {
		return "", "", err
	}
	if err := repo.Push(ctx, prRemote, wt.Branch); err != nil {
		return "", "", fmt.Errorf("push %s to %s: %w", wt.Branch, prRemote, err)
	}
	return base, d.Tip, nil
}

// prBody is the pull request's description: the issue, who accepted
// it, and the Worker's evidence and cost from its last attempt; only
// what the outbox and the Lead's records hold, no secret.
func (l *Lead) prBody(is outbox.Issue, ev outbox.Event, tip string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Issue #%d\n\n", is.ID)
	for _, line := range strings.Split(strings.TrimSpace(is.Title+"\n\n"+outbox.ParseMailbox(is.Body).Text), "\n") {
		b.WriteString(strings.TrimRight("> "+line, " ") + "\n")
	}
	fmt.Fprintf(&b, "\n## Accepted\n\ndecision:accepted stamped by %s (event %d).\n\n## Worker\n\n", ev.Actor, ev.ID)
	if res, ok := l.lastResult(is.ID); ok {
		for _, k := range []string{outbox.FieldTests, outbox.FieldChanges} {
			if v := res.Evidence[k]; v != "" {
				fmt.Fprintf(&b, "- %s: %s\n", k, strings.Join(strings.Fields(v), " "))
			}
		}
		if u := res.Usage; u != nil {
			fmt.Fprintf(&b, "- Cost: $%.4f (%d input, %d output tokens)\n", u.CostUSD, u.InputTokens, u.OutputTokens)
		}
		fmt.Fprintf(&b, "- Attempt %d, exit %d\n", res.Attempt, res.ExitCode)
	} else {
		b.WriteString("- no attempt recorded\n")
	}
	fmt.Fprintf(&b, "\n---\ndaokit lead:%s · branch %s at %.12s\n", l.o.Role, roster.WorktreeBranch(l.o.Role, is.ID), tip)
	return b.String()
}

// lastResult is the record of the Worker's last attempt on issue.
func (l *Lead) lastResult(issue int64) (attemptResult, bool) {
	atts, err := roster.Attempts(l.logRoot, l.o.Role, issue)
	if err != nil || len(atts) == 0 {
		return attemptResult{}, false
	}
	r, err := readAttemptResult(roster.AttemptDir(l.logRoot, l.o.Role, issue, atts[len(atts)-1]))
	return r, err == nil
}

// changeRequestName is what the forge calls it.
func changeRequestName(service string) string {
	if service == outbox.GitLabActor {
		return "merge request"
	}
	return "pull request"
}

// userinfo matches the credentials of a URL ("https://user:secret@").
var userinfo = regexp.MustCompile(`(://)[^/@\s]+@`)

// redact is err's text without the token and without credentials
// written into a remote's URL (git's errors show them); a forge's own
// errors never hold the token.
func redact(err error, token string) string {
	s := err.Error()
	if token != "" {
		s = strings.ReplaceAll(s, token, "***")
	}
	return userinfo.ReplaceAllString(s, "${1}***@")
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// onStamped is what decision:accepted on an issue asks of this Lead:
// the memory writer's record (onAccepted) and, for a role with deliver
// = "pr", the pull request of the issue's work (onAcceptedPR). A Lead
// that does both answers with one comment change under the pull
// request's trigger.
func (l *Lead) onStamped(ctx context.Context, ev outbox.Event) (*effect, error) {
	mem, err := l.onAccepted(ctx, ev)
	if err != nil {
		return nil, err
	}
	pr, err := l.onAcceptedPR(ctx, ev)
	if err != nil || pr == nil {
		return mem, err
	}
	if mem != nil {
		pr.change.Ops = append(pr.change.Ops, mem.change.Ops...)
	}
	return pr, nil
}
