package outbox

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// MailboxSchema is the contract of the mailbox fields (draft 2020-12):
// the one source of truth of what each field's value may be. The checks
// below are read from it when the package loads; a test runs a full JSON
// Schema validator over a corpus and the fuzz target to keep both in step.
//
//go:embed mailbox.schema.json
var MailboxSchema []byte

// InvalidField is a field line whose value breaks the contract: not taken
// as that field, kept so that the Lead can say what it did not take.
type InvalidField struct {
	Value  string `json:"value"`
	Reason string `json:"reason"`
}

// fieldRule is one property of the schema, resolved through its $ref.
type fieldRule struct {
	title          string
	minLen, maxLen int // maxLen < 0: no bound
	pattern        *regexp.Regexp
}

// fieldRules are the schema's properties by field name.
var fieldRules = mustRules(MailboxSchema)

// schemaNode is the part of JSON Schema the mailbox contract uses. Any
// other keyword in a property makes mustRules panic: a check the Go side
// would silently skip must not get into the file.
type schemaNode struct {
	Ref         string `json:"$ref"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Type        string `json:"type"`
	MinLength   *int   `json:"minLength"`
	MaxLength   *int   `json:"maxLength"`
	Pattern     string `json:"pattern"`
}

var knownKeywords = map[string]bool{"$ref": true, "title": true, "description": true, "type": true, "minLength": true, "maxLength": true, "pattern": true}

func mustRules(doc []byte) map[string]fieldRule {
	rules, err := compileRules(doc)
	if err != nil {
		panic("outbox: mailbox.schema.json: " + err.Error())
	}
	return rules
}

func compileRules(doc []byte) (map[string]fieldRule, error) {
	var root struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Defs       map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(doc, &root); err != nil {
		return nil, err
	}
	rules := map[string]fieldRule{}
	for name, raw := range root.Properties {
		var r fieldRule
		r.maxLen = -1
		// A property's own keywords apply with those of its $ref (2020-12
		// applies both); the title shown is the nearest one.
		for depth := 0; raw != nil; depth++ {
			if depth > 4 {
				return nil, fmt.Errorf("%s: $ref chain too long", name)
			}
			n, err := decodeNode(raw)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			if err := r.merge(n); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			raw = nil
			if n.Ref != "" {
				def, ok := strings.CutPrefix(n.Ref, "#/$defs/")
				if !ok || root.Defs[def] == nil {
					return nil, fmt.Errorf("%s: unresolved $ref %q", name, n.Ref)
				}
				raw = root.Defs[def]
			}
		}
		rules[name] = r
	}
	return rules, nil
}

func decodeNode(raw json.RawMessage) (schemaNode, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return schemaNode{}, err
	}
	for k := range keys {
		if !knownKeywords[k] {
			return schemaNode{}, fmt.Errorf("keyword %q is not read by outbox", k)
		}
	}
	var n schemaNode
	err := json.Unmarshal(raw, &n)
	if err == nil && n.Type != "" && n.Type != "string" {
		err = fmt.Errorf("type %q: a field is a string", n.Type)
	}
	return n, err
}

// merge adds n's constraints to r; two patterns on one field would need
// both to match, which one regexp cannot say: refused.
func (r *fieldRule) merge(n schemaNode) error {
	if r.title == "" {
		r.title = n.Title
	}
	if n.MinLength != nil && *n.MinLength > r.minLen {
		r.minLen = *n.MinLength
	}
	if n.MaxLength != nil && (r.maxLen < 0 || *n.MaxLength < r.maxLen) {
		r.maxLen = *n.MaxLength
	}
	if n.Pattern != "" {
		if r.pattern != nil {
			return fmt.Errorf("two patterns")
		}
		re, err := regexp.Compile(n.Pattern)
		if err != nil {
			return err
		}
		r.pattern = re
	}
	return nil
}

// CheckField reports why value breaks the contract of field ("" when it
// keeps it, or when field is not a mailbox field). Lengths count
// characters, as JSON Schema does.
func CheckField(field, value string) string {
	r, ok := fieldRules[field]
	if !ok {
		return ""
	}
	n := utf8.RuneCountInString(value)
	switch {
	case n < r.minLen:
		return "empty; expected " + r.title
	case r.maxLen >= 0 && n > r.maxLen:
		return fmt.Sprintf("longer than %d characters; expected %s", r.maxLen, r.title)
	case r.pattern != nil && !r.pattern.MatchString(value):
		return "expected " + r.title
	}
	return ""
}
