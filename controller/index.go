package controller

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/workflow"
)

// The instruction index is what a starting controller knows about every
// instruction it ever acknowledged without reading the history: which
// are still open (acknowledged, not finished) and the original
// acknowledgement of every message id. It is a fold of events.jsonl —
// the log stays the only source of truth — kept in state/index/ as a
// checkpoint of the open instructions plus hash buckets of
// acknowledgements, and brought up to date at start by replaying only the
// events appended after the checkpoint. docs/architecture.*.md describes
// the format.
//
// It has one owner at a time and no lock: loadIndex builds it, then the
// journal hands it to its indexer, the goroutine that owns it while the
// controller runs (see indexer); the journal folds into it and every
// reader asks that goroutine. Its methods assume their caller owns it.
type instrIndex struct {
	dir string // <root>/state/index

	open       map[string]*indexEntry // acknowledged, not finished; by message id
	ended      map[string]*indexEntry // finished FAILED or BLOCKED (a retry), or DONE as a pull request (another round): see endEntry
	byRun      map[[2]string]string   // task and run id → message id of an open instruction
	fresh      map[string]indexEntry  // folded since the last checkpoint, not yet in a bucket
	offset     int64                  // the events.jsonl offset the folded state covers
	generation int                    // the highest controller generation seen
	seq        int64                  // order of acknowledgement
	folded     int                    // events folded since the last checkpoint
}

// Kinds of index entries.
const (
	entryInstruction = "instruction" // an instruction with a run of its own
	entryAttached    = "attached"    // an instruction that named an existing run
	entryControl     = "control"     // a cancel, retry or status request
)

// indexEntry is one acknowledged message: what its acknowledgement said
// and, for an instruction, what is needed to run it again.
type indexEntry struct {
	MessageID  string       `json:"message_id"`
	Kind       string       `json:"kind"`
	EventID    string       `json:"event_id"`
	Route      ledger.Route `json:"route"`
	Text       string       `json:"text,omitempty"`
	ReceivedAt string       `json:"received_at,omitempty"`
	Seq        int64        `json:"seq,omitempty"`
	// Started is set once a worker was started for the instruction: a
	// restart then records that it resumes it. An instruction that only
	// waited for its lane resumes without a word in the log.
	Started bool `json:"started,omitempty"`
	// Completed lists the steps STEP_COMPLETED recorded for the open
	// instruction: pipeline_state.json shows one run only, so for the
	// others this is what keeps a finished step from running again.
	Completed []string `json:"completed,omitempty"`
	// Records holds what the open instruction's finished steps said (the
	// record of STEP_COMPLETED and STEP_RECORDED: text, verdict, judge
	// decision), by step id: the pipeline file is written after the log,
	// and a restart must still hand the next coder the review and never
	// ask a judge twice. Iterations a judge closed are dropped, as the
	// pipeline drops them (see archiveIterations). Never changed in
	// place: a fold replaces the map, so copies of the entry stay true.
	Records map[string]json.RawMessage `json:"records,omitempty"`
	// DoneThrough is the last iteration whose judge said to go on.
	DoneThrough int `json:"done_through,omitempty"`
	// FollowUps are the person's follow-ups of the instruction's task
	// (see followup.go), oldest first: the pipeline file shows one run
	// only, and a restart must still brief the others' steps with them.
	// Never changed in place, like Completed.
	FollowUps []string `json:"follow_ups,omitempty"`
	// Review is the change that waits for the person's verdict
	// (REVIEW_PENDING not yet followed by an accept or reject): the
	// pipeline file shows one run only, and a restart must not lose the
	// others' reviews.
	Review *reviewMark `json:"review,omitempty"`
	// Tree is the worktree the open instruction's run last readied
	// (WORKTREE_READY; its Key is the step, or runTreeKey): the pipeline
	// file may show another run, or lag behind the log, and a successor
	// must still find the change to review. An acceptance of its branch
	// drops it. Never changed in place.
	Tree *reviewMark `json:"tree,omitempty"`
	// Unreviewed: Tree's step completed (STEP_COMPLETED) and neither
	// REVIEW_PENDING nor an acceptance followed: a controller died
	// between them, and the successor puts the change to the person (see
	// sendToReview) instead of counting the step delivered.
	Unreviewed bool `json:"unreviewed,omitempty"`
	// Final, FinalReason and FinalStep are how an ended entry's run
	// finished (RUN_FINISHED: FAILED or BLOCKED, its reason code and the
	// step it stopped at).
	Final       string `json:"final,omitempty"`
	FinalReason string `json:"final_reason,omitempty"`
	FinalStep   string `json:"final_step,omitempty"`
	// Attempts is the last attempt number a STEP_STARTED recorded for
	// each of the instruction's steps: a successor numbers the next
	// attempt of a step after it (see run.attempts). Never changed in
	// place.
	Attempts map[string]int `json:"attempts,omitempty"`
	// Unended is the open instruction's last worker whose end the log
	// does not have (a STEP_STARTED with no STEP_COMPLETED, STEP_FAILED
	// or interruption by a stopping controller after it): a successor
	// reads that worker's end back from its logs (see finishFromLog).
	// Never changed in place.
	Unended *unendedStep `json:"unended,omitempty"`
	// PR is the pull request the instruction's accepted change became
	// (PULL_REQUEST): a run that ended DONE with one stays an ended
	// entry, which a person's /reject reopens (see prround.go). Never
	// changed in place.
	PR *prMark `json:"pr,omitempty"`
}

// unendedStep is a worker a STEP_STARTED named: enough to find it, and
// its output in the step's logs.
type unendedStep struct {
	Step    string `json:"step"`
	Lane    string `json:"lane"`
	PID     int    `json:"pid"`
	Attempt int    `json:"attempt"`
	// StdoutFrom and StderrFrom are where its output starts in the logs.
	StdoutFrom int64 `json:"stdout_from"`
	StderrFrom int64 `json:"stderr_from"`
}

// unendedOf reads a STEP_STARTED; nil for one written before the logs'
// offsets were recorded, whose worker's output cannot be told apart.
func unendedOf(e *ledger.Event) *unendedStep {
	if _, ok := e.Payload.Get("stdout_log_offset"); !ok || e.StepID == "" {
		return nil
	}
	return &unendedStep{Step: e.StepID, Lane: e.Payload.String("lane"), PID: payloadInt(e.Payload, "pid"),
		Attempt: payloadInt(e.Payload, "attempt"), StdoutFrom: int64(payloadInt(e.Payload, "stdout_log_offset")),
		StderrFrom: int64(payloadInt(e.Payload, "stderr_log_offset"))}
}

func (e indexEntry) ack() relay.Ack {
	return relay.Ack{Route: e.Route, EventID: e.EventID}
}

// instruction returns what the entry's run starts from.
func (e indexEntry) instruction() instruction {
	at, _ := ledger.ParseTime(e.ReceivedAt)
	return instruction{MessageID: e.MessageID, Text: e.Text, At: at, TaskID: e.Route.TaskID, RunID: e.Route.RunID}
}

// isTrue reports whether payload key holds JSON true.
func isTrue(payload ledger.Object, key string) bool {
	return string(rawOf(payload, key)) == "true"
}

// rawOf is payload key's JSON, nil when absent.
func rawOf(payload ledger.Object, key string) json.RawMessage {
	raw, _ := payload.Get(key)
	return raw
}

func newInstrIndex(dir string) *instrIndex {
	return &instrIndex{dir: dir, open: map[string]*indexEntry{}, ended: map[string]*indexEntry{}, byRun: map[[2]string]string{}, fresh: map[string]indexEntry{}}
}

// foldBatch applies durable events to the index and records that it now
// covers events.jsonl up to offset, in one step: a checkpoint's snapshot
// sees all of the batch or none of it, never a state that its offset
// would make a replay apply twice.
func (x *instrIndex) foldBatch(events []ledger.Event, offset int64) {
	for i := range events {
		x.fold(&events[i])
	}
	x.offset = offset
}

// fold applies one event.
func (x *instrIndex) fold(e *ledger.Event) {
	x.folded++
	switch e.EventType {
	case ledger.EventStepStarted:
		if en := x.open[x.byRun[[2]string{e.TaskID, e.RunID}]]; en != nil {
			en.Started = true
			en.Unended = unendedOf(e)
			if n := payloadInt(e.Payload, "attempt"); n > en.Attempts[e.StepID] && e.StepID != "" {
				attempts := maps.Clone(en.Attempts)
				if attempts == nil {
					attempts = map[string]int{}
				}
				attempts[e.StepID] = n
				en.Attempts = attempts
			}
		}
		return
	case ledger.EventStepFailed:
		if en := x.open[x.byRun[[2]string{e.TaskID, e.RunID}]]; en != nil && en.Unended != nil && en.Unended.Step == e.StepID {
			en.Unended = nil
		}
		return
	case ledger.EventStepCompleted:
		if en := x.open[x.byRun[[2]string{e.TaskID, e.RunID}]]; en != nil {
			if en.Unended != nil && en.Unended.Step == e.StepID {
				en.Unended = nil
			}
			if !slices.Contains(en.Completed, e.StepID) {
				en.Completed = append(slices.Clip(en.Completed), e.StepID)
			}
			en.keepRecord(e.StepID, e.Payload)
			if en.Tree != nil && en.Tree.Key == e.StepID {
				en.Unreviewed = true
			}
		}
		return
	case ledger.EventAcceptancePassed, ledger.EventAcceptanceFailed:
		if en := x.open[x.byRun[[2]string{e.TaskID, e.RunID}]]; en != nil {
			en.Review, en.Unreviewed = nil, false
			if en.Tree != nil && e.EventType == ledger.EventAcceptancePassed && e.Payload.String("branch") == en.Tree.Branch {
				// Delivered (or found unchanged): nothing of it is left
				// to review after a restart.
				en.Tree = nil
			}
		}
		return
	}
	if e.EventType != ledger.EventSystem {
		return
	}
	id := e.Payload.String("message_id")
	switch e.Payload.String("operation") {
	case opControllerStarted:
		x.generation = max(x.generation, payloadInt(e.Payload, "generation"))
	case opInstruction:
		if id == "" {
			return
		}
		en := indexEntry{MessageID: id, Kind: entryInstruction, EventID: e.EventID, Route: routeFrom(e.Payload),
			Text: e.Payload.String("text"), ReceivedAt: e.Payload.String("received_at")}
		if target := e.Payload.String("attached_to"); target != "" {
			en.Kind, en.Text = entryAttached, ""
			x.fresh[id] = en
			if e.Payload.String("reopens") == "true" {
				x.reopenEntry(target)
			}
			if t := x.open[target]; t != nil && isTrue(e.Payload, "follow_up") {
				t.FollowUps = append(slices.Clip(t.FollowUps), e.Payload.String("text"))
			}
			return
		}
		// A finished task's new run carries all the task's follow-ups.
		_ = json.Unmarshal(rawOf(e.Payload, "follow_ups"), &en.FollowUps)
		if _, dup := x.open[id]; dup {
			return
		}
		x.fresh[id] = en
		x.openEntry(en)
	case opControl:
		if id != "" {
			x.fresh[id] = indexEntry{MessageID: id, Kind: entryControl, EventID: e.EventID, Route: routeFrom(e.Payload)}
		}
		target := e.Payload.String("target_message_id")
		if e.Payload.String("kind") == string(relay.ControlRetry) {
			x.reopenEntry(target)
		}
		if en := x.ended[target]; en != nil && en.Final == ledger.StatusDone && e.Payload.String("kind") == string(relay.ControlReject) {
			x.reopenEntry(target) // another round of its pull request (prround.go)
		}
	case opStepRecorded:
		if en := x.open[x.byRun[[2]string{e.TaskID, e.RunID}]]; en != nil {
			en.keepRecord(e.StepID, e.Payload)
		}
	case opRunState:
		// A controller that stopped cleanly stopped its workers itself:
		// whatever their logs say, they did not end on their own, and
		// the next controller runs their steps again.
		if e.Payload.String("to") == stateCancelled && e.Payload.String("reason_code") == ReasonInterrupted {
			if en := x.open[x.byRun[[2]string{e.TaskID, e.RunID}]]; en != nil && en.Unended != nil && en.Unended.Step == e.StepID {
				en.Unended = nil
			}
		}
	case OpReviewPending:
		if en := x.open[x.byRun[[2]string{e.TaskID, e.RunID}]]; en != nil {
			en.Review, en.Unreviewed = reviewMarkOf(e), false
		}
	case OpPullRequest:
		if en := x.open[x.byRun[[2]string{e.TaskID, e.RunID}]]; en != nil {
			en.PR = prMarkOf(e, en.Tree)
		}
	case OpWorktreeReady:
		if en := x.open[x.byRun[[2]string{e.TaskID, e.RunID}]]; en != nil {
			en.Tree = treeMarkOf(e)
		}
	case opRunFinished:
		if en := x.open[id]; en != nil {
			delete(x.byRun, [2]string{en.Route.TaskID, en.Route.RunID})
			delete(x.open, id)
			x.endEntry(*en, e)
		} else if en := x.ended[id]; en != nil {
			// A person cancelled the run after it ended (see closeEnded):
			// a successor rebuilds it as it ends now.
			x.endEntry(*en, e)
		}
	}
}

// keepRecord keeps the record a finished step's event carries; a judge
// that said to go on after iteration n closes the iterations before n.
func (en *indexEntry) keepRecord(step string, payload ledger.Object) {
	raw, ok := payload.Get("record")
	if !ok || step == "" {
		return
	}
	var rec stepRecord
	if json.Unmarshal(raw, &rec) != nil {
		return
	}
	n := iterationOf(step)
	if d := rec.Decision; d != nil && !d.Done && n > 0 && payload.String("role") == string(workflow.RoleJudge) {
		en.DoneThrough = max(en.DoneThrough, n)
	}
	records := make(map[string]json.RawMessage, len(en.Records)+1)
	for id, r := range en.Records {
		if it := iterationOf(id); it == 0 || it >= en.DoneThrough {
			records[id] = r
		}
	}
	if n == 0 || n >= en.DoneThrough {
		records[step] = raw
	}
	en.Records = records
}

func (x *instrIndex) openEntry(en indexEntry) {
	x.seq++
	en.Seq = x.seq
	x.open[en.MessageID] = &en
	x.byRun[[2]string{en.Route.TaskID, en.Route.RunID}] = en.MessageID
}

// reopenEntry makes a finished instruction open again (a retry). Its
// entry may be old enough to be only in a bucket.
func (x *instrIndex) reopenEntry(id string) {
	if id == "" || x.open[id] != nil {
		return
	}
	if x.reopenEnded(id) {
		return
	}
	en, ok := x.fresh[id]
	if !ok {
		var err error
		if en, ok, err = readBucket(x.dir, id); err != nil || !ok {
			return
		}
	}
	if en.Kind == entryInstruction {
		en.Started = true // a retried run has run before
		x.openEntry(en)
	}
}

// remembered returns the entry of a message id when it is in memory:
// acknowledged since the last checkpoint, or open. Anything else is in
// its bucket, if anywhere.
func (x *instrIndex) remembered(id string) (indexEntry, bool) {
	if en, ok := x.fresh[id]; ok {
		return en, true
	}
	if en := x.open[id]; en != nil {
		return *en, true
	}
	return indexEntry{}, false
}

// openEntries returns the open instructions in the order they were
// acknowledged.
func (x *instrIndex) openEntries() []indexEntry {
	out := make([]indexEntry, 0, len(x.open))
	for _, en := range x.open {
		out = append(out, *en)
	}
	slices.SortFunc(out, func(a, b indexEntry) int { return int(a.Seq - b.Seq) })
	return out
}

// maxGeneration returns the highest controller generation the log shows.
func (x *instrIndex) maxGeneration() int {
	return x.generation
}

func payloadInt(o ledger.Object, key string) int {
	raw, ok := o.Get(key)
	if !ok {
		return 0
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return 0
	}
	i, _ := strconv.Atoi(n.String())
	return i
}
