package outbox

import (
	"reflect"
	"strings"
	"testing"
)

func TestMailboxRoundTrip(t *testing.T) {
	m := Mailbox{Text: "done\nall green", Fields: map[string]string{
		FieldTrigger: "T-1", FieldIssueRef: "#3", FieldChanges: "commit abc", FieldTests: "go test ./... ok",
	}}
	body := m.Render()
	want := "done\nall green\n\nTrigger: T-1\nIssueRef: #3\nChanges: commit abc\nTests: go test ./... ok"
	if body != want {
		t.Fatalf("render:\n%s\nwant:\n%s", body, want)
	}
	got := ParseMailbox(body)
	if got.Text != m.Text || !reflect.DeepEqual(got.Fields, m.Fields) {
		t.Fatalf("parse: %+v", got)
	}
}

func TestParseMailboxFirstWinsAndUnknownKeysAreText(t *testing.T) {
	got := ParseMailbox("Note: hello\nTrigger: a\nTrigger: b\n")
	if got.Fields[FieldTrigger] != "a" || got.Text != "Note: hello" {
		t.Fatalf("%+v", got)
	}
}

func TestIssueRefs(t *testing.T) {
	if got := IssueRefs("#3, #5 x 7;#0"); !reflect.DeepEqual(got, []int64{3, 5, 7}) {
		t.Fatalf("%v", got)
	}
	if FormatRefs([]int64{1, 2}) != "#1, #2" {
		t.Fatal(FormatRefs([]int64{1, 2}))
	}
}

// FuzzParseMailbox: parsing never panics, and rendering what was parsed
// parses back to the same fields.
func FuzzParseMailbox(f *testing.F) {
	f.Add("done\n\nTrigger: T-1\nReadUpTo: 42\nIssueRef: #3")
	f.Add("BlockedBy: #1, #2\nDependsOn:#4")
	f.Add("")
	f.Fuzz(func(t *testing.T, body string) {
		m := ParseMailbox(body)
		again := ParseMailbox(m.Render())
		for k, v := range m.Fields {
			want := strings.Join(strings.Fields(v), " ")
			if want != "" && again.Fields[k] != want {
				t.Fatalf("field %s: %q then %q", k, want, again.Fields[k])
			}
		}
		IssueRefs(body)
	})
}
