package compact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/daokit/daokit/compact/internal/ctxgen"
	"github.com/daokit/daokit/ledger"
)

// The properties below are checked against an independent reading of the
// JSON with encoding/json, not against this package's own readers.

func factsOf(l ctxgen.Ledger) Facts {
	return Facts{Goal: l.Goal, Constraints: l.Constraints, LatestInstruction: l.LatestInstruction, CurrentBlockers: l.Blockers,
		Route: ledger.Route{TaskID: l.TaskID, RunID: l.RunID, ActiveLane: l.ActiveLane, ActiveStep: l.ActiveStep, NextAction: l.NextAct}}
}

func TestPropertiesOverGeneratedContexts(t *testing.T) {
	t.Parallel()
	n := 1500
	if testing.Short() {
		n = 200
	}
	for seed := range uint64(n) {
		r := rand.New(rand.NewPCG(seed, 7))
		data := ctxgen.Random(r)
		known := factsOf(ctxgen.RandomLedger(r))
		if err := checkProperties(data, known); err != nil {
			t.Fatalf("seed %d: %v\ninput: %s\nknown: %+v", seed, err, data, known)
		}
	}
}

// checkProperties returns the first property that data breaks.
func checkProperties(data []byte, known Facts) error {
	c, err := Parse(data)
	if err != nil {
		return fmt.Errorf("parse: %w", err)
	}
	out, rep := Compact(c, known)
	enc := out.Encode()

	// Deterministic: a separate parse and compaction give the same bytes
	// and the same report.
	c2, _ := Parse(data)
	out2, rep2 := Compact(c2, known)
	if !bytes.Equal(out2.Encode(), enc) || !reflect.DeepEqual(rep, rep2) {
		return fmt.Errorf("not deterministic")
	}
	// Idempotent, in memory and through the bytes.
	again, repAgain := Compact(out, known)
	if !bytes.Equal(again.Encode(), enc) || repAgain.Changed() {
		return fmt.Errorf("second pass changed the context: %+v\n%s\nthen\n%s", repAgain, enc, again.Encode())
	}
	// A compacted list is reused as it is (items.compactedFor); check
	// that the entry-by-entry path with remembered analyses agrees.
	if again, rep := Compact(unseal(out), known); !bytes.Equal(again.Encode(), enc) || rep.Changed() {
		return fmt.Errorf("second pass over remembered analyses changed the context: %+v\n%s\nthen\n%s", rep, enc, again.Encode())
	}
	reparsed, err := Parse(enc)
	if err != nil {
		return fmt.Errorf("output does not parse: %w\n%s", err, enc)
	}
	fromBytes, repBytes := Compact(reparsed, known)
	if !bytes.Equal(fromBytes.Encode(), enc) || repBytes.Changed() {
		return fmt.Errorf("second pass from the bytes changed the context: %+v\n%s\nthen\n%s", repBytes, enc, fromBytes.Encode())
	}
	if err := checkReport(rep, c, out); err != nil {
		return err
	}
	var in, got map[string]any
	if err := decodeJSON(data, &in); err != nil {
		return err
	}
	if err := decodeJSON(enc, &got); err != nil {
		return fmt.Errorf("output is not JSON: %w", err)
	}
	want := expectedFacts(in, known)
	if err := checkFacts(got, want); err != nil {
		return err
	}
	if f := out.Facts(); !equalFacts(f, want) {
		return fmt.Errorf("Facts() = %+v, want %+v", f, want)
	}
	if err := checkLists(got, want.Route); err != nil {
		return err
	}
	return checkOthers(data, enc, in, got)
}

// unseal returns a copy of c whose lists Compact must go through entry by
// entry again, with the analyses it remembered.
func unseal(c *Context) *Context {
	d := c.Clone()
	for _, m := range d.members {
		if m.items != nil {
			m.items.compactedFor = nil
		}
	}
	return d
}

func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

func pyTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f })
}

// expectedFacts works out the keep set from the input and the ledger: the
// context's value when it is usable, else the ledger's.
func expectedFacts(in map[string]any, known Facts) Facts {
	relay, _ := in["relay_context"].(map[string]any)
	text := func(v any, fallback string) string {
		if s, ok := v.(string); ok && pyTrim(s) != "" {
			return pyTrim(s)
		}
		return pyTrim(fallback)
	}
	list := func(v any, fallback []string) []string {
		items, ok := v.([]any)
		if !ok {
			if fallback == nil {
				return nil
			}
			items = make([]any, len(fallback))
			for i, s := range fallback {
				items[i] = s
			}
		}
		out := []string{}
		for _, item := range items {
			if s, ok := item.(string); ok && pyTrim(s) != "" {
				out = append(out, pyTrim(s))
			}
		}
		return out
	}
	route, _ := relay["controller_route_summary"].(map[string]any)
	return Facts{
		Goal:              text(relay["goal"], known.Goal),
		Constraints:       list(relay["constraints"], known.Constraints),
		LatestInstruction: text(relay["latest_instruction"], known.LatestInstruction),
		CurrentBlockers:   list(relay["current_blockers"], known.CurrentBlockers),
		Route: ledger.Route{
			TaskID: text(route["task_id"], known.Route.TaskID), RunID: text(route["run_id"], known.Route.RunID),
			ActiveLane: text(route["active_lane"], known.Route.ActiveLane), ActiveStep: text(route["active_step"], known.Route.ActiveStep),
			NextAction: text(route["next_action"], known.Route.NextAction),
		},
	}
}

// checkFacts checks that the output's relay_context answers the five
// keep-set questions, and holds nothing else.
func checkFacts(got map[string]any, want Facts) error {
	relay, _ := got["relay_context"].(map[string]any)
	str := func(v any) string { s, _ := v.(string); return s }
	strs := func(v any) []string {
		items, ok := v.([]any)
		if !ok {
			return nil
		}
		out := []string{}
		for _, item := range items {
			out = append(out, str(item))
		}
		return out
	}
	route, _ := relay["controller_route_summary"].(map[string]any)
	have := Facts{
		Goal: str(relay["goal"]), Constraints: strs(relay["constraints"]), LatestInstruction: str(relay["latest_instruction"]),
		CurrentBlockers: strs(relay["current_blockers"]),
		Route: ledger.Route{TaskID: str(route["task_id"]), RunID: str(route["run_id"]), ActiveLane: str(route["active_lane"]),
			ActiveStep: str(route["active_step"]), NextAction: str(route["next_action"])},
	}
	if !equalFacts(have, want) {
		return fmt.Errorf("keep set: got %+v, want %+v", have, want)
	}
	for k := range relay {
		if !slices.Contains([]string{"goal", "constraints", "latest_instruction", "current_blockers", "controller_route_summary"}, k) {
			return fmt.Errorf("relay_context kept %q", k)
		}
	}
	if _, ok := got["relay_context"]; ok && len(relay) == 0 {
		return fmt.Errorf("empty relay_context kept")
	}
	return nil
}

// checkLists checks that nothing of the drop set survived.
func checkLists(got map[string]any, route ledger.Route) error {
	for _, l := range Lists() {
		v, present := got[l.String()]
		if !present || v == nil {
			continue
		}
		items, ok := v.([]any)
		if !ok || len(items) == 0 {
			return fmt.Errorf("%s: kept %v", l, v)
		}
		seen := map[string]bool{}
		for _, item := range items {
			if err := checkEntry(l, item, route); err != nil {
				return fmt.Errorf("%s: %v: %w", l, item, err)
			}
			for _, id := range identities(l, item) {
				if seen[id] {
					return fmt.Errorf("%s: duplicate %s", l, id)
				}
				seen[id] = true
			}
		}
	}
	return nil
}

func checkEntry(l List, item any, route ledger.Route) error {
	if l == EvidencePaths {
		s, ok := item.(string)
		if !ok || s == "" || s != pyTrim(s) || containsAnyLower([]byte(s), noisePaths) {
			return fmt.Errorf("path kept")
		}
		return nil
	}
	obj, ok := item.(map[string]any)
	if !ok {
		return fmt.Errorf("not an object")
	}
	if err := checkNormal(obj); err != nil {
		return err
	}
	status, _ := obj["status"].(string)
	lower := strings.ToLower(status)
	switch {
	case obj["stale"] == true:
		return fmt.Errorf("stale kept")
	case l == ExecutionLogs && slices.Contains(finishedStatuses, lower):
		return fmt.Errorf("finished log kept")
	case l == FailureNoise && (obj["resolved"] == true || lower == "resolved"):
		return fmt.Errorf("resolved failure kept")
	case route.TaskID != "" && isOtherText(obj["task_id"], route.TaskID), route.RunID != "" && isOtherText(obj["run_id"], route.RunID):
		return fmt.Errorf("entry of another task or run kept")
	}
	if l == APIErrorDumps {
		msg, hasMsg := obj["message"].(string)
		structured := false
		for _, k := range []string{"code", "hint", "reason_code", "retryable", "status"} {
			_, has := obj[k]
			structured = structured || has
		}
		if !structured && !hasMsg || hasMsg && isDump([]byte(msg)) {
			return fmt.Errorf("dump kept")
		}
	}
	return nil
}

func isOtherText(v any, want string) bool {
	s, ok := v.(string)
	return ok && s != want
}

// checkNormal checks that text members of obj and its nested objects are
// trimmed and not blank.
func checkNormal(obj map[string]any) error {
	for k, v := range obj {
		switch v := v.(type) {
		case string:
			if v == "" || v != pyTrim(v) {
				return fmt.Errorf("member %q = %q not normalized", k, v)
			}
		case map[string]any:
			if err := checkNormal(v); err != nil {
				return err
			}
		}
	}
	return nil
}

// identities lists the keys under which an entry must be unique in its
// list: its content, its event, its status subject.
func identities(l List, item any) []string {
	if l == EvidencePaths {
		return []string{path.Clean(item.(string))}
	}
	canon, _ := json.Marshal(item) // maps marshal with sorted keys
	obj := item.(map[string]any)
	if key, ok := obj["dedup_key"].(string); ok {
		ev, _ := json.Marshal([]any{obj["event_type"], key, obj["step_id"]})
		return []string{"event " + string(ev)}
	}
	ids := []string{"content " + string(canon)}
	if status, ok := obj["status"].(string); ok && l == StatusReports {
		subject, _ := json.Marshal([]any{status, obj["event_type"], obj["task_id"], obj["run_id"], obj["step_id"], obj["lane"]})
		ids = append(ids, "status "+string(subject))
	}
	return ids
}

// checkOthers checks that members outside the keep set and the lists
// stay, with their values, in their order.
func checkOthers(data, enc []byte, in, got map[string]any) error {
	special := func(k string) bool {
		_, isList := listOf(k)
		return isList || k == relayKey
	}
	var wantKeys, gotKeys []string
	for _, k := range topKeys(data) {
		if !special(k) && !slices.Contains(wantKeys, k) {
			wantKeys = append(wantKeys, k)
		}
	}
	for _, k := range topKeys(enc) {
		if !special(k) {
			gotKeys = append(gotKeys, k)
		}
	}
	if !slices.Equal(gotKeys, wantKeys) {
		return fmt.Errorf("other members: got %q, want %q", gotKeys, wantKeys)
	}
	for _, k := range wantKeys {
		if !reflect.DeepEqual(got[k], in[k]) {
			return fmt.Errorf("member %q: got %v, want %v", k, got[k], in[k])
		}
	}
	return nil
}

// topKeys lists the top-level keys of a JSON object in order.
func topKeys(data []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return nil
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}

// checkReport checks the report's arithmetic against the contexts.
func checkReport(rep Report, in, out *Context) error {
	if rep.EntriesBefore != in.Len() || rep.EntriesAfter != out.Len() || rep.BytesBefore != in.Size() || rep.BytesAfter != out.Size() {
		return fmt.Errorf("report sizes %+v do not match the contexts", rep)
	}
	if len(rep.Lists) != len(Lists()) {
		return fmt.Errorf("report has %d rows", len(rep.Lists))
	}
	for _, row := range rep.Lists {
		sum, dropped, merged := 0, 0, 0
		for _, rc := range row.Reasons {
			sum += rc.Count
			if rc.Reason.Merged() {
				merged += rc.Count
			} else {
				dropped += rc.Count
			}
		}
		if row.Before != row.Kept+row.Dropped+row.Merged || dropped != row.Dropped || merged != row.Merged || sum != row.Dropped+row.Merged {
			return fmt.Errorf("row %+v does not add up", row)
		}
		if kept := len(out.Entries(row.List)); row.Kept != kept {
			return fmt.Errorf("%s: report keeps %d, context has %d", row.List, row.Kept, kept)
		}
	}
	return nil
}

func TestPropertiesOverABigContext(t *testing.T) {
	t.Parallel()
	data := ctxgen.Big(10_000, 3)
	known := Facts{Goal: "ledger goal", Route: ledger.Route{TaskID: ctxgen.TaskID, RunID: ctxgen.RunID}}
	if err := checkProperties(data, known); err != nil {
		t.Fatal(err)
	}
}
