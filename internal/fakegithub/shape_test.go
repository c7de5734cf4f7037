package fakegithub

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
)

// recorded reads one answer of @octokit/fixtures (GitHub's real
// traffic, vendored beside the backend that decodes it).
func recorded(t *testing.T, name string, i int) any {
	t.Helper()
	data, err := os.ReadFile("../../outbox/testdata/octokit/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var fs []struct {
		Response any `json:"response"`
	}
	if err := json.Unmarshal(data, &fs); err != nil {
		t.Fatal(err)
	}
	return fs[i].Response
}

// sameShape reports the first field of got that the recorded answer
// does not have, or has with another JSON type (null matches any).
func sameShape(path string, got, want any) string {
	switch g := got.(type) {
	case map[string]any:
		w, ok := want.(map[string]any)
		if !ok {
			return path + ": object, recorded " + kind(want)
		}
		for k, v := range g {
			wv, ok := w[k]
			if !ok {
				return path + "." + k + ": not in the recording"
			}
			if v == nil || wv == nil {
				continue
			}
			if p := sameShape(path+"."+k, v, wv); p != "" {
				return p
			}
		}
	case []any:
		w, ok := want.([]any)
		if !ok {
			return path + ": array, recorded " + kind(want)
		}
		if len(g) > 0 && len(w) > 0 {
			return sameShape(path+"[0]", g[0], w[0])
		}
	default:
		if kind(got) != kind(want) {
			return path + ": " + kind(got) + ", recorded " + kind(want)
		}
	}
	return ""
}

func kind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	}
	return "null"
}

func call(t *testing.T, method, url, token, body string) (int, any, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var v any
	_ = json.Unmarshal(data, &v)
	return resp.StatusCode, v, resp.Header
}

// What the stand-in answers has the shape of what GitHub answered in
// the recordings: a new issue, the labels after adding some, an issue
// listing page with its Link header, a repository.
func TestAnswersHaveGitHubsShapes(t *testing.T) {
	s := New(Options{PageSize: 1}, map[string]Token{"tok": {Login: "octocat", Push: true}}, "o/r")
	defer s.Close()
	st, v, _ := call(t, "POST", s.URL+"/repos/o/r/issues", "tok", `{"title":"Issue without labels","body":"x"}`)
	if st != 201 {
		t.Fatalf("create: %d", st)
	}
	if p := sameShape("issue", v, recorded(t, "add-labels-to-issue", 0)); p != "" {
		t.Fatal(p)
	}
	st, v, _ = call(t, "POST", s.URL+"/repos/o/r/issues/1/labels", "tok", `{"labels":["Foo","bAr"]}`)
	if p := sameShape("labels", v, recorded(t, "add-labels-to-issue", 1)); st != 200 || p != "" {
		t.Fatal(st, p)
	}
	s.OpenIssue("o/r", "octocat", "two", "")
	st, v, h := call(t, "GET", s.URL+"/repos/o/r/issues?per_page=1", "tok", "")
	if p := sameShape("listing", v, recorded(t, "paginate-issues", 0)); st != 200 || p != "" {
		t.Fatal(st, p)
	}
	if l := h.Get("Link"); !strings.Contains(l, `page=2&per_page=1>; rel="next"`) || !strings.Contains(l, `rel="last"`) {
		t.Fatalf("Link %q", l)
	}
	st, v, _ = call(t, "GET", s.URL+"/repos/o/r", "tok", "")
	if p := sameShape("repository", v, recorded(t, "get-repository", 0)); st != 200 || p != "" {
		t.Fatal(st, p)
	}
	s.SetStatus("o/r", "0000000000000000000000000000000000000001", "failure")
	st, v, _ = call(t, "GET", s.URL+"/repos/o/r/commits/0000000000000000000000000000000000000001/status", "tok", "")
	if p := sameShape("combined status", v, recorded(t, "create-status", 3)); st != 200 || p != "" {
		t.Fatal(st, p)
	}
	if st, _, _ := call(t, "GET", s.URL+"/repos/o/r", "wrong", ""); st != 401 {
		t.Fatalf("a wrong token got %d", st)
	}
	if st, _, _ := call(t, "GET", s.URL+"/repos/o/missing", "tok", ""); st != 404 {
		t.Fatalf("a missing repository got %d", st)
	}
}
