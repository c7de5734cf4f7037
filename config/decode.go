package config

import (
	"fmt"
	"sort"
	"strconv"
	"time"
)

// The Want values of CodeType: the expected TOML type, an id that
// Localize translates ("config.type.<want>").
const (
	wantString   = "string"
	wantBoolean  = "boolean"
	wantInteger  = "integer"
	wantDuration = "duration"
	wantStrings  = "string_list"
	wantEnv      = "env"
	wantTable    = "table"
	wantTables   = "table_list"
	wantNumber   = "number"
)

// table reads one TOML table into typed fields, remembering which keys it
// used so that the rest can be reported as unknown. Decoding by hand (not
// by struct tags) is what lets every problem name its exact key, such as
// lanes[1].timeout, and tell an absent key from an explicit zero.
type table struct {
	p    *problems
	path string
	m    map[string]any
	used map[string]bool
}

func newTable(p *problems, path string, m map[string]any) *table {
	return &table{p: p, path: path, m: m, used: map[string]bool{}}
}

func (t *table) key(k string) string {
	if t.path == "" {
		return k
	}
	return t.path + "." + k
}

// get returns the raw value of k and marks it used.
func (t *table) get(k string) (any, bool) {
	v, ok := t.m[k]
	if ok {
		t.used[k] = true
	}
	return v, ok
}

func (t *table) typeErr(k string, v any, want string) {
	t.p.add(&Error{Code: CodeType, Key: t.key(k), Value: show(v), Want: want})
}

// str sets *dst from a string value; it reports whether k was present and
// well-typed.
func (t *table) str(k string, dst *string) bool {
	v, ok := t.get(k)
	if !ok {
		return false
	}
	s, ok := v.(string)
	if !ok {
		t.typeErr(k, v, wantString)
		return false
	}
	*dst = s
	return true
}

func (t *table) boolean(k string, dst *bool) bool {
	v, ok := t.get(k)
	if !ok {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		t.typeErr(k, v, wantBoolean)
		return false
	}
	*dst = b
	return true
}

func (t *table) integer(k string, dst *int) bool {
	v, ok := t.get(k)
	if !ok {
		return false
	}
	n, ok := v.(int64)
	if !ok || int64(int(n)) != n {
		t.typeErr(k, v, wantInteger)
		return false
	}
	*dst = int(n)
	return true
}

// number sets *dst from a float or an integer value.
func (t *table) number(k string, dst *float64) bool {
	v, ok := t.get(k)
	if !ok {
		return false
	}
	switch x := v.(type) {
	case float64:
		*dst = x
	case int64:
		*dst = float64(x)
	default:
		t.typeErr(k, v, wantNumber)
		return false
	}
	return true
}

func (t *table) duration(k string, dst *Duration) bool {
	v, ok := t.get(k)
	if !ok {
		return false
	}
	s, ok := v.(string)
	if !ok {
		// A bare number has no unit; say so rather than "wrong type".
		if _, isNum := v.(int64); isNum {
			t.p.add(&Error{Code: CodeDuration, Key: t.key(k), Value: show(v)})
			return false
		}
		t.typeErr(k, v, wantDuration)
		return false
	}
	if err := dst.UnmarshalText([]byte(s)); err != nil {
		t.p.add(&Error{Code: CodeDuration, Key: t.key(k), Value: show(s), Err: err})
		return false
	}
	return true
}

func (t *table) strings(k string, dst *[]string) bool {
	v, ok := t.get(k)
	if !ok {
		return false
	}
	list, ok := v.([]any)
	if !ok {
		t.typeErr(k, v, wantStrings)
		return false
	}
	out := make([]string, 0, len(list))
	for i, item := range list {
		s, ok := item.(string)
		if !ok {
			t.p.add(&Error{Code: CodeType, Key: fmt.Sprintf("%s[%d]", t.key(k), i), Value: show(item), Want: wantString})
			return false
		}
		out = append(out, s)
	}
	*dst = out
	return true
}

// env reads a list of "KEY=value" strings or a table of KEY = value.
func (t *table) env(k string, dst *Env) bool {
	v, ok := t.get(k)
	if !ok {
		return false
	}
	switch x := v.(type) {
	case []any:
		var list []string
		if !t.strings(k, &list) {
			return false
		}
		*dst = list
		return true
	case map[string]any:
		keys := make([]string, 0, len(x))
		for name := range x {
			keys = append(keys, name)
		}
		sort.Strings(keys)
		out := make(Env, 0, len(keys))
		for _, name := range keys {
			s, ok := scalarText(x[name])
			if !ok {
				t.p.add(&Error{Code: CodeType, Key: t.key(k) + "." + name, Value: show(x[name]), Want: wantString})
				return false
			}
			out = append(out, name+"="+s)
		}
		*dst = out
		return true
	}
	t.typeErr(k, v, wantEnv)
	return false
}

// sub returns the nested table k, or nil when absent or not a table.
func (t *table) sub(k string) *table {
	v, ok := t.get(k)
	if !ok {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.typeErr(k, v, wantTable)
		return nil
	}
	return newTable(t.p, t.key(k), m)
}

// tables returns the array of tables k ([[k]]); present reports whether
// the key was in the file at all.
func (t *table) tables(k string) (list []*table, present bool) {
	v, ok := t.get(k)
	if !ok {
		return nil, false
	}
	var maps []map[string]any
	switch x := v.(type) {
	case []map[string]any:
		maps = x
	case []any:
		for _, item := range x {
			m, ok := item.(map[string]any)
			if !ok {
				t.typeErr(k, v, wantTables)
				return nil, true
			}
			maps = append(maps, m)
		}
	default:
		t.typeErr(k, v, wantTables)
		return nil, true
	}
	for i, m := range maps {
		list = append(list, newTable(t.p, fmt.Sprintf("%s[%d]", t.key(k), i), m))
	}
	return list, true
}

// keys returns the table's keys in order (for tables keyed by name).
func (t *table) keys() []string {
	out := make([]string, 0, len(t.m))
	for k := range t.m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// done reports every key of the table that no reader asked for.
func (t *table) done() {
	var unknown []string
	for k := range t.m {
		if !t.used[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		t.p.add(&Error{Code: CodeUnknownKey, Key: t.key(k)})
	}
}

// scalarText renders an env table value; numbers and booleans are
// accepted because DEBUG = 1 is what people write.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// show renders a TOML value for an error message.
func show(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case time.Time:
		return x.Format(time.RFC3339)
	case map[string]any:
		return "{…}"
	case []map[string]any:
		return "[{…}]"
	}
	return fmt.Sprint(v)
}
