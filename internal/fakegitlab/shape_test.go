package fakegitlab

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func get(t *testing.T, url, token, etag string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("PRIVATE-TOKEN", token)
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

// The stand-in answers as GitLab does: the project by its encoded path,
// 401 without PRIVATE-TOKEN, labels as strings, system notes for label
// changes, GitLab's pagination headers, and a free 304 for an unchanged
// listing.
func TestAnswersAsGitLabDoes(t *testing.T) {
	s := New(Options{PageSize: 2}, map[string]Token{"tok": {Username: "bot", Level: 30}}, nil, "g/sub/p")
	defer s.Close()
	for i := 0; i < 3; i++ {
		s.OpenIssue("g/sub/p", "ann", "t", "", "to:qa")
	}
	s.SetLabels("g/sub/p", 1, "to:qa", "bug")
	list := s.URL + "/projects/g%2Fsub%2Fp/issues?per_page=2&order_by=updated_at&sort=asc"
	if resp, _ := get(t, list, "", ""); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: %d", resp.StatusCode)
	}
	resp, body := get(t, list, "tok", "")
	var issues []map[string]any
	if err := json.Unmarshal(body, &issues); err != nil || len(issues) != 2 {
		t.Fatalf("%s %v", body, err)
	}
	if resp.Header.Get("X-Next-Page") != "2" || resp.Header.Get("X-Total") != "3" || !strings.Contains(resp.Header.Get("Link"), `rel="next"`) {
		t.Fatalf("pagination headers %v", resp.Header)
	}
	if labels, ok := issues[0]["labels"].([]any); !ok || len(labels) == 0 {
		t.Fatalf("labels %v", issues[0]["labels"])
	} else if _, ok := labels[0].(string); !ok {
		t.Fatalf("a label is not a string: %v", labels[0])
	}
	if issues[0]["iid"] == nil || issues[0]["state"] != "opened" || issues[0]["description"] != nil {
		t.Fatalf("issue %v", issues[0])
	}
	charged := s.Charged()
	if again, _ := get(t, list, "tok", resp.Header.Get("ETag")); again.StatusCode != http.StatusNotModified || s.Charged() != charged {
		t.Fatalf("unchanged listing: %d, charged %d", again.StatusCode, s.Charged()-charged)
	}
	_, body = get(t, s.URL+"/projects/g%2Fsub%2Fp/issues/1/notes", "tok", "")
	var notes []map[string]any
	if err := json.Unmarshal(body, &notes); err != nil || len(notes) != 1 || notes[0]["system"] != true || notes[0]["noteable_type"] != "Issue" {
		t.Fatalf("notes %s", body)
	}
	if resp, _ := get(t, s.URL+"/projects/g%2Fnone/issues", "tok", ""); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("missing project: %d", resp.StatusCode)
	}
}
