package outbox

import (
	"context"
	"strings"
)

// githubUsername is GitHub's rule for a login: letters, digits and
// hyphens, at most 39.
func githubUsername(s string) bool {
	for _, r := range s {
		if !(r == '-' || asciiAlnum(r)) {
			return false
		}
	}
	return len(s) > 0 && len(s) <= 39
}

// gitlabUsername is GitLab's rule for a username: letters, digits, "_",
// "-" and ".", at most 255, not starting with "-" or ".", not ending in
// ".", ".git" or ".atom". A dotted or underscored name ("ann.lee",
// "ci_bot") is a GitLab user, though never a GitHub one.
func gitlabUsername(s string) bool {
	if s == "" || len(s) > 255 || s[0] == '-' || s[0] == '.' ||
		strings.HasSuffix(s, ".") || strings.HasSuffix(s, ".git") || strings.HasSuffix(s, ".atom") {
		return false
	}
	for _, r := range s {
		if !(r == '-' || r == '_' || r == '.' || asciiAlnum(r)) {
			return false
		}
	}
	return true
}

func asciiAlnum(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

func (a *githubAPI) username(name string) bool { return githubUsername(name) }

func (a *gitlabAPI) username(name string) bool { return gitlabUsername(name) }

func (a *githubAPI) setText(ctx context.Context, n int64, title, body string) (remote, error) {
	return a.patch(ctx, n, map[string]any{"title": title, "body": body})
}

func (a *gitlabAPI) setText(ctx context.Context, n int64, title, body string) (remote, error) {
	return a.edit(ctx, n, map[string]any{"title": title, "description": body})
}
