// Package ctxgen generates relay contexts for the tests and benchmarks of
// package compact: big realistic ones for speed and memory, small hostile
// ones for the property and fuzz tests. The same seed always gives the
// same bytes.
package ctxgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Route and Goal name the task that Big's contexts are about.
const (
	Goal   = "Ship the relay compaction"
	TaskID = "DKT-100"
	RunID  = "RUN-7"
)

// Big returns a relay context with n list entries in the mix a long
// session produces: mostly finished execution logs and repeated status
// reports, failure noise (half resolved), API error dumps, and evidence
// paths, many of them repeated. It is indented like the Python DAOKit's
// files.
func Big(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	lists := map[string]*bytes.Buffer{}
	order := []string{"execution_logs", "status_reports", "failure_noise", "api_error_dumps", "evidence_paths"}
	for _, k := range order {
		lists[k] = &bytes.Buffer{}
	}
	add := func(list, entry string) {
		b := lists[list]
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(entry)
	}
	for i := range n {
		switch p := r.IntN(100); {
		case p < 35:
			add("execution_logs", bigLog(r, i))
		case p < 60:
			add("status_reports", bigStatus(r, i))
		case p < 75:
			add("failure_noise", bigFailure(r))
		case p < 85:
			add("api_error_dumps", bigDump(r))
		default:
			add("evidence_paths", bigPath(r))
		}
	}
	var doc bytes.Buffer
	doc.WriteString(`{"relay_context":{"goal":"` + Goal + `","constraints":["Keep the ledger format","No network in tests"],` +
		`"latest_instruction":"compact the relay context","current_blockers":[],` +
		`"controller_route_summary":{"task_id":"` + TaskID + `","run_id":"` + RunID + `","active_lane":"controller","active_step":"S3","next_action":"verify"}},` +
		`"session":{"opened_at":"2026-02-12T07:02:08+00:00","window":"observer"}`)
	for _, k := range order {
		doc.WriteString(`,"` + k + `":[`)
		doc.Write(lists[k].Bytes())
		doc.WriteString(`]`)
	}
	doc.WriteString(`}`)
	var out bytes.Buffer
	if json.Indent(&out, doc.Bytes(), "", "  ") != nil {
		return doc.Bytes() // cannot happen: every entry above is valid JSON
	}
	out.WriteByte('\n')
	return out.Bytes()
}

var logStatuses = []string{"running", "running", "running", "completed", "completed", "done", "success", "failed", "queued", "accepted"}

func bigLog(r *rand.Rand, i int) string {
	step := "S" + strconv.Itoa(1+r.IntN(40))
	run := RunID
	if r.IntN(30) == 0 {
		run = "RUN-6" // an older run: stale once the route moved on
	}
	status := logStatuses[r.IntN(len(logStatuses))]
	stale := ""
	if r.IntN(20) == 0 {
		stale = `,"stale":true`
	}
	// Messages repeat often enough to exercise deduplication.
	msg := fmt.Sprintf("%s: build module %d of the change set", step, r.IntN(max(i/3, 1)))
	return fmt.Sprintf(`{"event_type":"STEP_STARTED","task_id":%q,"run_id":%q,"step_id":%q,"status":%q,"message":%q,"timestamp":"2026-02-12T07:%02d:%02d+00:00"%s}`,
		TaskID, run, step, status, msg, r.IntN(60), r.IntN(60), stale)
}

var reportStatuses = []string{"RUNNING", "RUNNING", "RUNNING", "PENDING", "BLOCKED"}

func bigStatus(r *rand.Rand, i int) string {
	return fmt.Sprintf(`{"event_type":"STATUS","task_id":%q,"run_id":%q,"step_id":"S%d","lane":"worker-%d","status":%q,"observed_at":"2026-02-12T08:%02d:%02d+00:00","seq":%d}`,
		TaskID, RunID, 1+r.IntN(40), r.IntN(4), reportStatuses[r.IntN(len(reportStatuses))], r.IntN(60), r.IntN(60), i)
}

func bigFailure(r *rand.Rand) string {
	resolved := r.IntN(2) == 0
	return fmt.Sprintf(`{"event_type":"STEP_FAILED","task_id":%q,"run_id":%q,"step_id":"S%d","reason_code":"E_WORKER_EXIT","dedup_key":"fail:%d","resolved":%t,"message":"worker exited with status %d"}`,
		TaskID, RunID, 1+r.IntN(40), r.IntN(2000), resolved, 1+r.IntN(3))
}

var dumps = []string{
	`"Traceback (most recent call last):\n  File \"agent.py\", line 12, in run\nRuntimeError: boom"`,
	`"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"`,
	`"upstream said E_RATE_LIMIT in its traceback"`,
	`"{\"error\":{\"type\":\"overloaded\",\"message\":\"try later\"}}"`,
	`{"code":"E_TIMEOUT","message":"gateway timeout","status":504}`,
	`{"message":"   "}`,
	`"quota almost used up"`,
}

func bigDump(r *rand.Rand) string {
	if r.IntN(4) == 0 {
		return fmt.Sprintf(`{"code":"E_HTTP_%d","message":"request %d failed","retryable":true}`, 500+r.IntN(4), r.IntN(500))
	}
	return dumps[r.IntN(len(dumps))]
}

func bigPath(r *rand.Rand) string {
	step := 1 + r.IntN(40)
	switch r.IntN(5) {
	case 0:
		return fmt.Sprintf(`"logs/S%d/stdout.log"`, step)
	case 1:
		return fmt.Sprintf(`"./reports/S%d/verification.log"`, step)
	default:
		return fmt.Sprintf(`"reports/S%d/artifact-%d.md"`, step, r.IntN(300))
	}
}

// Ledger is what a test pretends the ledger knows of the keep set; the
// tests turn it into compact.Facts. Empty strings and nil slices are
// unknown.
type Ledger struct {
	Goal, LatestInstruction                        string
	Constraints, Blockers                          []string
	TaskID, RunID, ActiveLane, ActiveStep, NextAct string
}

// RandomLedger returns ledger facts, each known or not at random.
func RandomLedger(r *rand.Rand) Ledger {
	pick := func(s string) string {
		if r.IntN(2) == 0 {
			return ""
		}
		return s
	}
	l := Ledger{
		Goal: pick("ledger goal"), LatestInstruction: pick(" ledger instruction "),
		TaskID: pick("T-L"), RunID: pick("R-L"), ActiveLane: pick("controller"), ActiveStep: pick("S9"), NextAct: pick("resume"),
	}
	if r.IntN(2) == 0 {
		l.Constraints = []string{"ledger constraint", "  "}
	}
	if r.IntN(2) == 0 {
		l.Blockers = []string{}
	}
	return l
}

// Random returns a small relay context full of the cases compaction must
// get right: padded and blank text, escapes and non-ASCII text, duplicate
// keys, duplicated and reordered entries, wrong types, nested objects,
// dumps with and without error codes, noisy and repeated paths, and
// unknown members.
func Random(r *rand.Rand) []byte {
	g := &gen{r: r}
	var members []string
	if r.IntN(5) > 0 {
		members = append(members, `"relay_context":`+g.relay())
	}
	for _, k := range []string{"execution_logs", "status_reports", "failure_noise", "api_error_dumps", "evidence_paths"} {
		switch r.IntN(8) {
		case 0: // absent
		case 1:
			members = append(members, `"`+k+`":`+g.scalar())
		default:
			members = append(members, `"`+k+`":`+g.list(k))
		}
	}
	for range r.IntN(3) {
		members = append(members, g.str("extra_"+strconv.Itoa(r.IntN(3)))+":"+g.value(2))
	}
	r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	return []byte(g.space() + "{" + strings.Join(members, ","+g.space()) + "}" + g.space())
}

type gen struct {
	r    *rand.Rand
	prev []string // entries written so far, to repeat some
}

var texts = []string{
	"running", "completed", " Completed ", "DONE", "success", "accepted", "resolved", "failed", "", "   ", "\t",
	"S1", "S2", "T-1", "T-L", "R-1", "R-L", "worker", "E_TIMEOUT", "gateway timeout",
	"Traceback (most recent call last): E_BAD_THING", "Traceback: noise dump", "<HTML><body>oops</body>",
	"see E_RATE_LIMIT now", "xE_NOT_A_CODE", "{\"error\":\"body\"}", "[not json", "步骤 S1 完成", "emoji 🚀 ok",
	"line\nbreak", "quote \" and \\ slash", "\u00a0nbsp padded\u3000", "reports/S1/report.md", "./reports/S1/report.md",
	"logs/stdout.txt", "api_error_dump/raw.log", " reports//S1/report.md ",
}

func (g *gen) text() string { return texts[g.r.IntN(len(texts))] }

// str writes s as a JSON string, sometimes with needless escapes.
func (g *gen) str(s string) string {
	b, _ := json.Marshal(s)
	if g.r.IntN(4) == 0 {
		return strings.ReplaceAll(string(b), "S", `\u0053`)
	}
	return string(b)
}

func (g *gen) space() string { return []string{"", " ", "\n  ", "\t"}[g.r.IntN(4)] }

func (g *gen) scalar() string {
	return []string{"null", "true", "false", "0", "-0", "1.0", "1e5", "12", `"x"`, g.str(g.text())}[g.r.IntN(10)]
}

func (g *gen) value(depth int) string {
	switch n := g.r.IntN(10); {
	case depth > 0 && n == 0:
		return g.object(depth-1, nil)
	case depth > 0 && n == 1:
		var items []string
		for range g.r.IntN(3) {
			items = append(items, g.value(depth-1))
		}
		return "[" + strings.Join(items, ",") + "]"
	default:
		return g.scalar()
	}
}

var entryKeys = []string{"status", "stale", "resolved", "event_type", "dedup_key", "step_id", "task_id", "run_id", "lane", "message", "code", "hint", "detail", "nested"}

func (g *gen) object(depth int, keys []string) string {
	if keys == nil {
		keys = entryKeys
	}
	var ms []string
	for range g.r.IntN(6) {
		k := keys[g.r.IntN(len(keys))] // repeats make duplicate keys
		var v string
		switch {
		case k == "stale" || k == "resolved":
			v = []string{"true", "false", `"true"`, "1"}[g.r.IntN(4)]
		case k == "nested":
			v = g.object(depth, []string{"a", "b", "message"})
		case g.r.IntN(6) == 0:
			v = g.value(depth)
		default:
			v = g.str(g.text())
		}
		ms = append(ms, g.str(k)+":"+g.space()+v)
	}
	return "{" + strings.Join(ms, ","+g.space()) + "}"
}

func (g *gen) list(name string) string {
	var items []string
	for range g.r.IntN(12) {
		var item string
		switch n := g.r.IntN(10); {
		case n < 2 && len(g.prev) > 0:
			item = g.prev[g.r.IntN(len(g.prev))]
		case n == 2:
			item = g.value(1)
		case name == "evidence_paths" || name == "api_error_dumps" && n < 5:
			item = g.str(g.text())
		case n < 6:
			item = g.shaped()
		default:
			item = g.object(1, nil)
		}
		g.prev = append(g.prev, item)
		items = append(items, item)
	}
	return "[" + g.space() + strings.Join(items, ","+g.space()) + "]"
}

// shaped writes an entry with the members the rules read, so that
// statuses repeat and events share dedup keys often.
func (g *gen) shaped() string {
	pick := func(options ...string) string { return options[g.r.IntN(len(options))] }
	ms := []string{
		`"status":` + g.str(pick("RUNNING", "running", " RUNNING ", "done", "completed", "FAILED", "resolved")),
		`"step_id":` + g.str(pick("S1", "S2")),
		`"at":` + strconv.Itoa(g.r.IntN(4)),
	}
	if g.r.IntN(2) == 0 {
		ms = append(ms, `"event_type":`+g.str(pick("STATUS", "STEP_FAILED")))
	}
	if g.r.IntN(3) == 0 {
		ms = append(ms, `"dedup_key":`+g.str(pick("k1", "k2", " k1")))
	}
	if g.r.IntN(3) == 0 {
		ms = append(ms, `"run_id":`+g.str(pick("R-1", "R-L")))
	}
	g.r.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	return "{" + strings.Join(ms, ","+g.space()) + "}"
}

func (g *gen) relay() string {
	if g.r.IntN(10) == 0 {
		return g.scalar()
	}
	fields := []string{"goal", "constraints", "latest_instruction", "current_blockers", "controller_route_summary", "transient_note", "goal"}
	var ms []string
	for _, f := range fields {
		if g.r.IntN(3) == 0 {
			continue
		}
		var v string
		switch f {
		case "constraints", "current_blockers":
			v = "[" + g.str(g.text()) + "," + g.scalar() + "," + g.str(g.text()) + "]"
		case "controller_route_summary":
			v = g.object(1, []string{"task_id", "run_id", "active_lane", "active_step", "next_action", "extra"})
		default:
			v = g.str(g.text())
			if g.r.IntN(6) == 0 {
				v = g.scalar()
			}
		}
		ms = append(ms, g.str(f)+":"+v)
	}
	return "{" + strings.Join(ms, ",") + "}"
}
