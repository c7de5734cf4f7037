package events

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/projection"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/text"
	"github.com/daokit/daokit/tui/theme"
	"github.com/daokit/daokit/vocab"
	"github.com/daokit/daokit/worker/transcript"
)

// columns are the widths of one layout of the event rows; 0 hides a column.
type columns struct {
	time, sev, typ, step int
}

// layoutFor picks the columns that fit a pane w cells wide: narrow panes
// lose the step, then the type label, before the summary gets short.
func layoutFor(w int) columns {
	switch {
	case w >= 96:
		return columns{time: 8, sev: 5, typ: 18, step: 8}
	case w >= 64:
		return columns{time: 8, sev: 5, typ: 14, step: 6}
	case w >= 44:
		return columns{time: 8, sev: 5, typ: 12}
	default:
		return columns{time: 8, sev: 5}
	}
}

// renderRow draws one event, without the selection mark, in w cells.
func renderRow(env *component.Env, ev *ledger.Event, w int) string {
	st := env.Styles
	c := layoutFor(w)
	tail := env.Tail()
	var b strings.Builder
	cell := func(s string, width int, p theme.Paint) {
		b.WriteString(p.Apply(text.Fit(s, width, tail)))
		b.WriteByte(' ')
	}
	at := ""
	if t, err := ledger.ParseTime(ev.Timestamp); err == nil {
		at = env.Clock(t)
	}
	cell(at, c.time, st.MutedPaint)
	cell(env.Clean(ev.Severity), c.sev, st.Paint(component.SeverityTone(ev.Severity)))
	if c.typ > 0 {
		cell(env.Clean(env.Labels.Or(component.KindEvent, ev.EventType)), c.typ,
			st.Paint(component.EventTone(ev.EventType)))
	}
	if c.step > 0 {
		cell(env.Clean(ev.StepID), c.step, st.MutedPaint)
	}
	used := c.time + c.sev + 2
	if c.typ > 0 {
		used += c.typ + 1
	}
	if c.step > 0 {
		used += c.step + 1
	}
	sum := summary(env, ev)
	if c.typ == 0 && ev.Payload.String("operation") == "" {
		// No type column: the type in words leads, unless the summary
		// already starts with what the event is (its operation).
		sum = env.Clean(env.Labels.Or(component.KindEvent, ev.EventType)) + " " + sum
	}
	b.WriteString(st.TextPaint.Apply(truncateWords(sum, w-used, tail)))
	return b.String()
}

// truncateWords fits s into w cells without cutting a value in the
// middle ("lane=wor…") where a shorter form fits: the key= labels of
// words go (a word says enough in a row: lane=worker is "worker") before
// anything is cut. A number keeps its label: bare, "3023 3023199 15 1"
// says nothing.
func truncateWords(s string, w int, tail string) string {
	if text.Width(s) <= w {
		return s
	}
	words := strings.Split(s, " ")
	for i, t := range words {
		if k, v, ok := strings.Cut(t, "="); ok && k != "" && v != "" && !isNumber(v) {
			words[i] = v
		}
	}
	// Still too wide: labelled numbers at the end go whole (a cut label,
	// "sile…", says nothing either), then the rest is cut at the end.
	cut := ""
	for len(words) > 1 && text.Width(strings.Join(words, " ")+cut) > w {
		k, v, ok := strings.Cut(words[len(words)-1], "=")
		if !ok || k == "" || !isNumber(v) {
			break
		}
		words, cut = words[:len(words)-1], tail
	}
	return text.Truncate(strings.Join(words, " ")+cut, w, tail)
}

// isNumber reports whether v is a JSON number.
func isNumber(v string) bool {
	_, err := strconv.ParseFloat(v, 64)
	return err == nil
}

// isDefault reports a payload value that says nothing: empty, zero,
// false or null ("signal=", "dropped=0").
func isDefault(v string) bool {
	switch v {
	case "", "0", "false", "null", "[]", "{}":
		return true
	}
	return false
}

// summaryKeys are the payload members a summary names first, in order.
var summaryKeys = []string{"reason_code", "decision_reason_code", "decision_action", "node", "to_status",
	"state", "resume_step_id", "next_action", "message", "line", "text", "error"}

// summary is a one-line digest of an event's payload: the operation (in
// the person's language), then the members that say most, then the rest
// as key=value, all cleaned of control characters.
func summary(env *component.Env, ev *ledger.Event) string {
	var parts []string
	used := map[string]bool{}
	if op := ev.Payload.String("operation"); op != "" {
		parts = append(parts, env.Labels.Or(component.KindOperation, op))
		used["operation"] = true
	}
	if from, to := ev.Payload.String("from"), ev.Payload.String("to"); from != "" || to != "" {
		// A run-state change, in words.
		word := func(s string) string { return component.Word(env, projection.StateWord(vocab.RunState(s))) }
		parts = append(parts, word(from)+" → "+word(to))
		used["from"], used["to"] = true, true
	}
	if d := deniedSummary(env, ev.Payload); d != "" {
		parts = append(parts, d)
		used["denied"] = true
	}
	if c := ev.Payload.String("criterion"); c != "" {
		// What the acceptance checked, in words.
		parts = append(parts, env.Labels.Or(component.KindCriterion, c))
		used["criterion"], used["no_change"] = true, true
	}
	if line := lastLine(ev.Payload); line != "" {
		parts = append(parts, describeLine(env, line))
		used["lines"] = true
	}
	for _, k := range summaryKeys {
		if v, ok := scalar(ev.Payload, k); ok && !isDefault(v) {
			if k == "message" || k == "line" || k == "text" || k == "error" {
				parts = append(parts, v)
			} else {
				parts = append(parts, k+"="+v)
			}
			used[k] = true
		}
	}
	for _, f := range ev.Payload {
		if len(parts) >= 6 {
			break
		}
		if used[f.Key] {
			continue
		}
		if v, ok := scalar(ev.Payload, f.Key); ok && !isDefault(v) {
			parts = append(parts, f.Key+"="+v)
		}
	}
	return env.Clean(strings.Join(parts, " "))
}

// describeLine shows a worker-protocol line ("@daokit {...}") as what it
// says, in the reader's language, the way the conversation pane does; the
// ledger keeps the raw line, and the detail view shows it.
func describeLine(env *component.Env, line string) string {
	d := transcript.ProtocolDecoder{}.Decode(transcript.Stdout, []byte(line))
	if len(d.Events) == 0 {
		return line
	}
	if s := transcript.DescribeRecord(env.Loc, transcript.Record{Text: line, Events: d.Events}); s != "" {
		return s
	}
	return transcript.EventLabel(env.Loc, d.Events[0].Type)
}

// lastLine returns the text of the last entry of a "lines" member (worker
// output events carry the lines they batch).
func lastLine(o ledger.Object) string {
	raw, ok := o.Get("lines")
	if !ok || len(raw) == 0 || raw[0] != '[' {
		return ""
	}
	var lines []struct {
		Line string `json:"line"`
	}
	if json.Unmarshal(raw, &lines) != nil || len(lines) == 0 {
		return ""
	}
	return lines[len(lines)-1].Line
}

// scalar returns a payload member as text when it is a string, number or
// boolean; lists and objects are left to the detail view.
func scalar(o ledger.Object, key string) (string, bool) {
	raw, ok := o.Get(key)
	if !ok || len(raw) == 0 {
		return "", false
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		if len(s) > 512 {
			s = s[:512]
		}
		return s, true
	case '{', '[', 'n':
		return "", false
	}
	return string(raw), true
}

// detailLines is the detail view of one event: the envelope, then the
// payload as indented JSON, cleaned line by line.
func detailLines(env *component.Env, ev *ledger.Event) []string {
	field := func(id, v string) string {
		return env.T(id, "V", env.Clean(v))
	}
	// What the event is, in words: its operation for the controller's
	// SYSTEM events, its type otherwise.
	what := env.Labels.Or(component.KindEvent, ev.EventType)
	if op := ev.Payload.String("operation"); op != "" {
		what = env.Labels.Or(component.KindOperation, op)
	}
	task := ev.TaskID + " / " + ev.RunID
	if ev.TaskID == globalID && ev.RunID == globalID {
		task = env.T("tui.events.detail.global")
	}
	lines := []string{
		field("tui.events.detail.type", what),
		field("tui.events.detail.severity", env.Labels.Or(component.KindSeverity, ev.Severity)),
		field("tui.events.detail.time", ev.Timestamp),
		field("tui.events.detail.task", task),
		field("tui.events.detail.step", orDash(ev.StepID)),
		field("tui.events.detail.id", ev.EventID),
		field("tui.events.detail.dedup", orDash(ev.DedupKey)),
		env.Styles.Muted.Render(env.T("tui.events.detail.payload", "V", "")),
	}
	raw, err := ev.Payload.MarshalJSON()
	if err != nil {
		raw = []byte("{}")
	}
	return append(lines, text.SanitizeLines(pretty(raw), env.Wide)...)
}

// globalID is the task and run id of the controller's own events (start,
// stop), which belong to no run (see controller's globalID).
const globalID = "controller"

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// count renders n with thousands separators.
func count(n uint64) string {
	s := strconv.FormatUint(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
