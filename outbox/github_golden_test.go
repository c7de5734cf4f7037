package outbox

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// fixture is one recorded interaction of @octokit/fixtures
// (testdata/octokit): GitHub's real answers, the decoder's golden input.
type fixture struct {
	Method   string          `json:"method"`
	Path     string          `json:"path"`
	Status   int             `json:"status"`
	Response json.RawMessage `json:"response"`
	Headers  map[string]any  `json:"headers"`
	Req      map[string]any  `json:"reqheaders"`
}

func loadFixtures(t *testing.T, name string) []fixture {
	t.Helper()
	data, err := os.ReadFile("testdata/octokit/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var fs []fixture
	if err := json.Unmarshal(data, &fs); err != nil {
		t.Fatal(err)
	}
	return fs
}

// GitHub's recorded answers decode into what the backend reads: a new
// issue, the labels a label write answers with, a listing's Link
// header, a repository's permissions, a refusal's message.
func TestGitHubDecodesRecordedAnswers(t *testing.T) {
	add := loadFixtures(t, "add-labels-to-issue")
	var gi ghIssue
	if err := json.Unmarshal(add[0].Response, &gi); err != nil {
		t.Fatal(err)
	}
	r := remoteOf(gi)
	if add[0].Method != "post" || add[0].Status != 201 || r.Number != 1 || r.Title == "" || r.User == "" || r.Closed || r.Created.IsZero() || r.Updated.IsZero() {
		t.Fatalf("issue %+v from %s", r, add[0].Path)
	}
	var ls []ghLabel
	if err := json.Unmarshal(add[1].Response, &ls); err != nil {
		t.Fatal(err)
	}
	if names := labelNames(ls); len(names) != 3 || names[0] != "Foo" {
		t.Fatalf("labels %v", names)
	}

	pages := loadFixtures(t, "paginate-issues")
	seen := 0
	for i, p := range pages {
		var gs []ghIssue
		if err := json.Unmarshal(p.Response, &gs); err != nil {
			t.Fatal(err)
		}
		for _, g := range gs {
			if g.Number == 0 || g.State == "" || g.User.Login == "" {
				t.Fatalf("page %d: %+v", i, g)
			}
		}
		seen += len(gs)
		link, _ := p.Headers["link"].(string)
		next := nextLink(link)
		if i+1 < len(pages) {
			if !strings.HasSuffix(next, pages[i+1].Path) {
				t.Fatalf("page %d: next %q, recorded next request %q", i, next, pages[i+1].Path)
			}
		} else if next != "" {
			t.Fatalf("last page has next %q", next)
		}
	}
	if seen != 13 {
		t.Fatalf("%d issues over the pages", seen)
	}

	var repo ghRepo
	if err := json.Unmarshal(loadFixtures(t, "get-repository")[0].Response, &repo); err != nil {
		t.Fatal(err)
	}
	if repo.FullName != "octokit-fixture-org/hello-world" || repo.Permissions == nil || !repo.HasIssues {
		t.Fatalf("repository %+v", repo)
	}

	e := loadFixtures(t, "errors")[0]
	var m struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(e.Response, &m); err != nil || e.Status != 422 || m.Message != "Validation Failed" {
		t.Fatalf("error %d %q", e.Status, m.Message)
	}
}
