package outbox

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The shapes of GitHub's REST answers that the backend reads (a subset:
// unknown fields are ignored, as the API grows them).
type ghUser struct {
	Login string `json:"login"`
}

type ghLabel struct {
	Name string `json:"name"`
}

type ghIssue struct {
	Number      int64           `json:"number"`
	Title       string          `json:"title"`
	Body        *string         `json:"body"`
	User        ghUser          `json:"user"`
	State       string          `json:"state"`
	Labels      []ghLabel       `json:"labels"`
	Assignees   []ghUser        `json:"assignees"`
	PullRequest json.RawMessage `json:"pull_request,omitempty"`
	CreatedAt   time.Time       `json:"created_at"`
	UpdatedAt   time.Time       `json:"updated_at"`
}

type ghComment struct {
	ID        int64     `json:"id"`
	IssueURL  string    `json:"issue_url"`
	User      ghUser    `json:"user"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

type ghRepo struct {
	FullName    string `json:"full_name"`
	HasIssues   bool   `json:"has_issues"`
	Permissions *struct {
		Admin    bool `json:"admin"`
		Maintain bool `json:"maintain"`
		Push     bool `json:"push"`
		Triage   bool `json:"triage"`
		Pull     bool `json:"pull"`
	} `json:"permissions"`
}

// issueNumber reads the number at the end of a comment's issue_url.
func (c ghComment) issueNumber() int64 {
	i := strings.LastIndexByte(c.IssueURL, '/')
	n, _ := strconv.ParseInt(c.IssueURL[i+1:], 10, 64)
	return n
}

func (c ghComment) note() note {
	return note{ID: c.ID, Issue: c.issueNumber(), User: c.User.Login, Body: c.Body, Created: c.CreatedAt.UTC(), Updated: c.UpdatedAt.UTC()}
}

// isPull: GitHub lists pull requests among the issues.
func (g ghIssue) isPull() bool { return len(g.PullRequest) > 0 && string(g.PullRequest) != "null" }

// AssigneeLabelPrefix starts the GitHub label that carries a daokit
// assignee that is no GitHub login ("lead:backend"): GitHub only assigns
// its users, and a login never holds a colon, so the two never mix.
const AssigneeLabelPrefix = "assignee:"

// remote is one issue as GitHub has it, raw: the labels with the
// assignee labels, and the GitHub assignees.
type remote struct {
	Number    int64
	Title     string
	Body      string
	User      string
	Closed    bool
	Labels    []string
	Assignees []string
	Created   time.Time
	Updated   time.Time
}

func remoteOf(g ghIssue) remote {
	r := remote{Number: g.Number, Title: g.Title, User: g.User.Login, Closed: g.State == "closed",
		Created: g.CreatedAt.UTC(), Updated: g.UpdatedAt.UTC()}
	if g.Body != nil {
		r.Body = *g.Body
	}
	for _, l := range g.Labels {
		r.Labels = append(r.Labels, l.Name)
	}
	for _, a := range g.Assignees {
		r.Assignees = append(r.Assignees, a.Login)
	}
	return r
}

// mailboxLabels are the issue's labels as the mailbox has them: without
// the assignee labels, sorted, as the SQLite backend returns them.
func (r remote) mailboxLabels() []string {
	var out []string
	for _, l := range r.Labels {
		if !strings.HasPrefix(l, AssigneeLabelPrefix) {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

// assignee is the mailbox's one assignee: the assignee label's name
// when there is one (set by daokit), else the first GitHub assignee.
func (r remote) assignee() string {
	for _, l := range r.Labels {
		if strings.HasPrefix(l, AssigneeLabelPrefix) {
			return l[len(AssigneeLabelPrefix):]
		}
	}
	if len(r.Assignees) > 0 {
		return r.Assignees[0]
	}
	return ""
}

// marker is what daokit writes, hidden, at the end of every body it
// posts: who in daokit wrote it (all of daokit posts as the token's
// user) and for which reader's trigger, so that a comment daokit posted
// is known as its own and a trigger it answered stays answered after
// its local state is lost.
type marker struct {
	Actor   string `json:"actor"`
	Reader  string `json:"reader,omitempty"`
	Trigger string `json:"trigger,omitempty"`
	// Answered are the triggers readers had answered on the outbox an
	// export brought here (Export), so that no Lead answers them again
	// on the service. "{issue}" and "{comment}" in a trigger stand for
	// the number and id the service gave what carries the marker: they
	// were not known before it was posted.
	Answered []answered `json:"answered,omitempty"`
}

// answered is one trigger a reader answered.
type answered struct {
	Reader  string `json:"reader"`
	Trigger string `json:"trigger"`
}

const markerOpen, markerClose = "<!-- daokit ", " -->"

// withMarker appends m to body. json.Marshal escapes < and >, so no
// value can end the HTML comment early.
func withMarker(body string, m marker) string {
	b, _ := json.Marshal(m)
	return strings.TrimRight(body, "\n") + "\n\n" + markerOpen + string(b) + markerClose
}

// splitMarker returns body without its trailing marker, and the marker.
func splitMarker(body string) (string, marker, bool) {
	t := strings.TrimRight(body, " \r\n")
	if !strings.HasSuffix(t, markerClose) {
		return body, marker{}, false
	}
	i := strings.LastIndex(t, markerOpen)
	if i < 0 {
		return body, marker{}, false
	}
	var m marker
	if err := json.Unmarshal([]byte(t[i+len(markerOpen):len(t)-len(markerClose)]), &m); err != nil || m.Actor == "" {
		return body, marker{}, false
	}
	return strings.TrimRight(t[:i], "\r\n"), m, true
}
