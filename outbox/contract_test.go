package outbox

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// librarySchema is mailbox.schema.json compiled by a full JSON Schema
// validator: the reference the package's own checks are held to.
var librarySchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(MailboxSchema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mailbox.schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("mailbox.schema.json")
})

func libraryKeeps(t testing.TB, field, value string) bool {
	sch, err := librarySchema()
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(map[string]any{field: value}) == nil
}

// written are values the product writes today (the Lead's comments, the
// simulated Worker's and the drills' Workers' lines, daokit outbox
// comment) and forms people write: all keep the contract.
var written = map[string][]string{
	FieldState:     {"state:queued", "state:running", "state:blocked", "state:done", "state:failed", "state:review", "done", "failed"},
	FieldTrigger:   {"T-1", "claim:3", "comment:12", "worker:3:1", "retry after the fix", "触发-1"},
	FieldReadUpTo:  {"0", "42", "9223372036854775807"},
	FieldIssueRef:  {"#3", "#1", "3", "daokit/daokit#3", "backend#12", "https://github.com/daokit/daokit/issues/3"},
	FieldChanges:   {"commit sim-1a2b3c4d", "n/a", "trace", "https://github.com/daokit/daokit/pull/7", "commit abc"},
	FieldTests:     {"sim tests: 3 passed", "sim tests: 1 failed", "4 passed", "traced", "go test ./... ok", "cwd /tmp/w", "write /etc/x: refused (permission denied)", "outbox write: ALLOWED", "n/a", "测试：3 通过"},
	FieldBlockedBy: {"#1", "#1, #2", "#3", "waiting for the schema decision", "需要 API 约定"},
	FieldDependsOn: {"#2", "#1, #2", "#3, #5", "3 5", "#3 #5", "#3;#5", "#3 and #5", "#3 & #5", "#3, #5,", "none", "N/A", "-"},
	FieldBreaking:  {"renames POST /login", "drops the v1 field"},
	FieldSplit:     {"tokens; sessions; logout", "one part"},
}

// refused are values that break it.
var refused = map[string][]string{
	FieldState:     {"Done", "done.", "working", "state:", "state:done later"},
	FieldTrigger:   {strings.Repeat("t", 257), "a\x00b", "a\x1bb"},
	FieldReadUpTo:  {"#42", "-1", "forty", "1.5", "12345678901234567890"},
	FieldIssueRef:  {"#0", "the login issue", "#3, #5", "ftp://x/3", "#1234567890123456789"},
	FieldChanges:   {"colour \x1b[32mok", strings.Repeat("x", 10001)},
	FieldTests:     {"bell\a"},
	FieldBlockedBy: {"a\x7fb"},
	FieldDependsOn: {"the login one", "#0", "#3, #5 x 7", "#", "3,,5", "#3 or #5", "#12345678901234567890"},
	FieldBreaking:  {"\x01"},
	FieldSplit:     {"a\x0bb"},
}

func TestSchemaNamesTheMailboxFields(t *testing.T) {
	var doc struct {
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(MailboxSchema, &doc); err != nil {
		t.Fatal(err)
	}
	var names []string
	for k := range doc.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	want := slices.Clone(fieldOrder)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("schema properties %v, fields %v", names, want)
	}
	if libraryKeeps(t, "Note", "x") {
		t.Fatal("the schema takes a field that is not a mailbox field")
	}
}

// TestContractAgreesWithTheSchema: the package's checks and a full JSON
// Schema validator give the same verdict on every value of the corpus,
// and the corpus says what it is meant to.
func TestContractAgreesWithTheSchema(t *testing.T) {
	for verdict, corpus := range map[bool]map[string][]string{true: written, false: refused} {
		for field, values := range corpus {
			for _, v := range values {
				ours := CheckField(field, v)
				if lib := libraryKeeps(t, field, v); lib != (ours == "") {
					t.Errorf("%s %q: library keeps=%v, CheckField %q", field, v, lib, ours)
				}
				if (ours == "") != verdict {
					t.Errorf("%s %q: CheckField %q, want kept=%v", field, v, ours, verdict)
				}
			}
		}
	}
}

// TestCompileRulesRefusesWhatItDoesNotRead: a keyword the Go side would
// skip cannot get into the schema unnoticed.
func TestCompileRulesRefusesWhatItDoesNotRead(t *testing.T) {
	for _, doc := range []string{
		`{"properties":{"State":{"enum":["done"]}}}`,
		`{"properties":{"State":{"type":"integer"}}}`,
		`{"properties":{"State":{"$ref":"#/$defs/nope"}}}`,
		`{"properties":{"State":{"pattern":"^a","$ref":"#/$defs/p"}},"$defs":{"p":{"pattern":"b$"}}}`,
	} {
		if _, err := compileRules([]byte(doc)); err == nil {
			t.Errorf("%s: compiled", doc)
		}
	}
}

func TestParseMailboxKeepsInvalidFieldsVisible(t *testing.T) {
	m := ParseMailbox("wait for it\nDependsOn: the login one\nState: Done\nTrigger: T-1\nReadUpTo: #4")
	if _, ok := m.Fields[FieldDependsOn]; ok || m.Fields[FieldTrigger] != "T-1" {
		t.Fatalf("fields %v", m.Fields)
	}
	if m.Invalid[FieldDependsOn].Value != "the login one" || m.Invalid[FieldState].Value != "Done" || len(m.Invalid) != 3 {
		t.Fatalf("invalid %v", m.Invalid)
	}
	if m.Text != "wait for it" {
		t.Fatalf("text %q", m.Text)
	}
	said := m.NotTaken()
	if !strings.HasPrefix(said, `State "Done" (expected a state`) || !strings.Contains(said, "\nDependsOn \"the login one\" (expected issue numbers") {
		t.Fatalf("not taken:\n%s", said)
	}
	// Said in a comment, it is text, not fields.
	if again := ParseMailbox(said); len(again.Fields) != 0 || len(again.Invalid) != 0 {
		t.Fatalf("the note reads back as fields: %+v", again)
	}
	// A valid value wins over an invalid one, wherever it is.
	m = ParseMailbox("DependsOn: soon\nDependsOn: #4")
	if m.Fields[FieldDependsOn] != "#4" || m.Invalid != nil {
		t.Fatalf("%+v", m)
	}
}

// FuzzMailboxContract: for any value of any field, the package's check
// agrees with a full JSON Schema validator; a body's taken fields keep
// the contract and its invalid ones break it; what Render writes of the
// taken fields is taken back whole; a DependsOn kept names issues.
func FuzzMailboxContract(f *testing.F) {
	for field, values := range written {
		for _, v := range values {
			f.Add(field, v)
		}
	}
	for field, values := range refused {
		for _, v := range values {
			f.Add(field, v)
		}
	}
	f.Fuzz(func(t *testing.T, field, value string) {
		if !knownField(field) {
			field = fieldOrder[len(field)%len(fieldOrder)]
		}
		why := CheckField(field, value)
		if utf8.ValidString(value) {
			if lib := libraryKeeps(t, field, value); lib != (why == "") {
				t.Fatalf("%s %q: library keeps=%v, CheckField %q", field, value, lib, why)
			}
		}
		m := ParseMailbox("text\n" + field + ": " + value + "\nTrigger: " + value)
		for k, v := range m.Fields {
			if v != "" && CheckField(k, v) != "" {
				t.Fatalf("taken %s %q breaks the contract", k, v)
			}
		}
		for k, inv := range m.Invalid {
			if inv.Reason == "" || CheckField(k, inv.Value) != inv.Reason {
				t.Fatalf("invalid %s %+v", k, inv)
			}
		}
		again := ParseMailbox(m.Render())
		for k, v := range m.Fields {
			if want := strings.Join(strings.Fields(v), " "); want != "" && again.Fields[k] != want {
				t.Fatalf("%s: %q rendered, then %q (%+v)", k, want, again.Fields[k], again.Invalid)
			}
		}
		if d := m.Fields[FieldDependsOn]; d != "" && !strings.EqualFold(d, "none") && !strings.EqualFold(d, "n/a") && d != "-" {
			refs := IssueRefs(d)
			if len(refs) == 0 || CheckField(FieldDependsOn, FormatRefs(refs)) != "" {
				t.Fatalf("DependsOn %q: refs %v", d, refs)
			}
		}
	})
}
