package projection

import (
	"testing"

	"github.com/daokit/daokit/vocab"
)

// The seed's AgentRunProjectionTests: status text and progress for
// selected vs non-selected entries, the waiting display rules, and
// abandonment. One row per case.
func TestProject(t *testing.T) {
	run := func(s vocab.RunState) Entry {
		return Entry{TaskID: "T1", RunID: "R1", StepID: "S1", Lane: "coder", State: s}
	}
	with := func(e Entry, f func(*Entry)) Entry { f(&e); return e }
	for _, tc := range []struct {
		name     string
		e        Entry
		selected bool
		want     Display
	}{
		{"nothing reported yet is received, not waiting", Entry{TaskID: "T1", RunID: "R1"}, false,
			Display{Word: Word{Kind: WordReceived}}},
		{"waiting, not selected: the word alone", run(vocab.StateWaiting), false,
			Display{Word: Word{WordRun, "waiting"}, Mood: MoodWarn, Waiting: true}},
		{"waiting, selected: the lane it waits for", run(vocab.StateWaiting), true,
			Display{Word: Word{WordRun, "waiting"}, Mood: MoodWarn, Waiting: true, Selected: true, Detail: Detail{Step: "S1", Lane: "coder"}}},
		{"generating, not selected: no step, no reason", with(run(vocab.StateGenerating), func(e *Entry) { e.Reason = vocab.ReasonHung }), false,
			Display{Word: Word{WordRun, "generating"}, Mood: MoodProgress, Live: true}},
		{"generating, selected: its step, no lane", run(vocab.StateGenerating), true,
			Display{Word: Word{WordRun, "generating"}, Mood: MoodProgress, Live: true, Selected: true, Detail: Detail{Step: "S1"}}},
		{"requesting holds a slot", run(vocab.StateRequesting), false,
			Display{Word: Word{WordRun, "requesting"}, Mood: MoodProgress, Live: true}},
		{"persisting holds a slot", run(vocab.StatePersisting), false,
			Display{Word: Word{WordRun, "persisting"}, Mood: MoodProgress, Live: true}},
		{"idle is neither waiting nor live", run(vocab.StateIdle), false,
			Display{Word: Word{WordRun, "idle"}, Mood: MoodNeutral}},
		{"completed step of a run going on", run(vocab.StateCompleted), false,
			Display{Word: Word{WordRun, "completed"}, Mood: MoodGood}},
		{"ended DONE", with(run(vocab.StateCompleted), func(e *Entry) { e.Final = vocab.StatusDone }), false,
			Display{Word: Word{WordPipeline, "DONE"}, Mood: MoodGood}},
		{"ended BLOCKED needs its person", with(run(vocab.StateFailed), func(e *Entry) { e.Final = vocab.StatusBlocked }), false,
			Display{Word: Word{WordPipeline, "BLOCKED"}, Need: NeedBlocked, Mood: MoodWarn}},
		{"ended FAILED needs its person, with the reason when selected",
			with(run(vocab.StateFailed), func(e *Entry) { e.Final, e.Reason = vocab.StatusFailed, vocab.ReasonExitNonzero }), true,
			Display{Word: Word{WordPipeline, "FAILED"}, Need: NeedFailed, Mood: MoodBad, Selected: true, Detail: Detail{Step: "S1", Reason: vocab.ReasonExitNonzero}}},
		{"cancelled on purpose does not need its person", with(run(vocab.StateCancelled), func(e *Entry) { e.Final = vocab.StatusFailed }), false,
			Display{Word: Word{WordRun, "cancelled"}}},
		{"abandoned while waiting: abandoned, not a failure",
			with(run(vocab.StateFailed), func(e *Entry) { e.Final, e.Reason = vocab.StatusFailed, vocab.ReasonAbandoned }), false,
			Display{Word: Word{WordAbandoned, "RUN_ABANDONED"}}},
		{"abandoned, selected: the word says the reason, the detail does not repeat it",
			with(run(vocab.StateFailed), func(e *Entry) { e.Final, e.Reason = vocab.StatusFailed, vocab.ReasonAbandoned }), true,
			Display{Word: Word{WordAbandoned, "RUN_ABANDONED"}, Selected: true, Detail: Detail{Step: "S1"}}},
		{"cancelled after it ended blocked: its end says so",
			with(run(vocab.StateFailed), func(e *Entry) { e.Final, e.Reason = vocab.StatusFailed, vocab.ReasonCancelled }), false,
			Display{Word: Word{WordRun, "cancelled"}}},
		{"a change to review beats the run's state", with(run(vocab.StateCompleted), func(e *Entry) { e.Review = true }), false,
			Display{Word: Word{Kind: WordReview}, Need: NeedReview, Mood: MoodWarn}},
		{"timed out step of a run going on", run(vocab.StateTimedOut), false,
			Display{Word: Word{WordRun, "timedOut"}, Mood: MoodBad}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Project(tc.e, tc.selected); got != tc.want {
				t.Errorf("Project(%+v, %v)\n got %+v\nwant %+v", tc.e, tc.selected, got, tc.want)
			}
		})
	}
}

// Slot isolation (the seed's entry/slot ownership isolation): news of
// another task or another run never changes an entry; news of its own
// run does, and a run that goes again has not ended any more.
func TestFoldIsolation(t *testing.T) {
	base := Entry{TaskID: "T1", RunID: "R2", StepID: "S1", State: vocab.StateGenerating}
	for _, tc := range []struct {
		name    string
		u       Update
		changed bool
		want    Entry
	}{
		{"another task's run state", Update{TaskID: "T2", RunID: "R9", StepID: "S1", State: vocab.StateFailed}, false, base},
		{"an older run of the task", Update{TaskID: "T1", RunID: "R1", StepID: "S1", State: vocab.StateFailed}, false, base},
		{"an older run's end", Update{TaskID: "T1", RunID: "R1", Final: vocab.StatusFailed}, false, base},
		{"its own run's state", Update{TaskID: "T1", RunID: "R2", StepID: "S2", Lane: "coder", State: vocab.StateWaiting}, true,
			Entry{TaskID: "T1", RunID: "R2", StepID: "S2", Lane: "coder", State: vocab.StateWaiting}},
		{"its own run's end, with a reason", Update{TaskID: "T1", RunID: "R2", Final: vocab.StatusBlocked, Reason: vocab.ReasonHung}, true,
			Entry{TaskID: "T1", RunID: "R2", StepID: "S1", State: vocab.StateGenerating, Final: vocab.StatusBlocked, Reason: vocab.ReasonHung}},
		{"a review of its run", Update{TaskID: "T1", RunID: "R2", StepID: "S3", Review: true}, true,
			Entry{TaskID: "T1", RunID: "R2", StepID: "S3", State: vocab.StateGenerating, Review: true}},
		{"the same state again", Update{TaskID: "T1", RunID: "R2", StepID: "S1", State: vocab.StateGenerating}, false, base},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := base
			if got := e.Fold(tc.u); got != tc.changed {
				t.Errorf("Fold changed = %v, want %v", got, tc.changed)
			}
			if e != tc.want {
				t.Errorf("after Fold\n got %+v\nwant %+v", e, tc.want)
			}
		})
	}
}

// The waiting lifecycle of one run as the person sees it: received,
// waiting, started, terminal; and a run that is dropped while waiting
// ends abandoned, never failed, never asking for its person.
func TestWaitingLifecycle(t *testing.T) {
	e := Entry{TaskID: "T1", RunID: "R1"}
	steps := []struct {
		u    Update
		word Word
		wait bool
		need bool
	}{
		{Update{TaskID: "T1", RunID: "R1", StepID: "S1", State: vocab.StateWaiting}, Word{WordRun, "waiting"}, true, false},
		{Update{TaskID: "T1", RunID: "R1", StepID: "S1", State: vocab.StateRequesting}, Word{WordRun, "requesting"}, false, false},
		{Update{TaskID: "T1", RunID: "R1", StepID: "S1", State: vocab.StateGenerating}, Word{WordRun, "generating"}, false, false},
		{Update{TaskID: "T1", RunID: "R1", StepID: "S1", State: vocab.StateCompleted}, Word{WordRun, "completed"}, false, false},
		{Update{TaskID: "T1", RunID: "R1", Final: vocab.StatusDone}, Word{WordPipeline, "DONE"}, false, false},
	}
	for i, s := range steps {
		e.Fold(s.u)
		d := Project(e, true)
		if d.Word != s.word || d.Waiting != s.wait || d.NeedsYou() != s.need {
			t.Fatalf("step %d: %+v", i, d)
		}
	}
	dropped := Entry{TaskID: "T2", RunID: "R2"}
	dropped.Fold(Update{TaskID: "T2", RunID: "R2", StepID: "S1", State: vocab.StateWaiting})
	dropped.Fold(Update{TaskID: "T2", RunID: "R2", StepID: "S1", State: vocab.StateFailed, Reason: vocab.ReasonAbandoned})
	dropped.Fold(Update{TaskID: "T2", RunID: "R2", Final: vocab.StatusFailed, Reason: vocab.ReasonAbandoned})
	if d := Project(dropped, false); d.Word.Kind != WordAbandoned || d.NeedsYou() || d.Waiting {
		t.Fatalf("abandoned run: %+v", d)
	}
	// A retry of the dropped run: it has not ended any more, and shows
	// the request received until the controller says more.
	if !dropped.Retried("R2") {
		t.Fatal("Retried did not change the abandoned run")
	}
	if d := Project(dropped, false); d.Word.Kind != WordReceived || d.NeedsYou() {
		t.Fatalf("retried run: %+v", d)
	}
	if dropped.Retried("R1") {
		t.Fatal("a retry of another run changed the entry")
	}
}

// Steps of a pipeline: the current one is selected; a queued step waits,
// a dispatched one is live, a failed one needs its person unless it was
// abandoned.
func TestStep(t *testing.T) {
	for _, tc := range []struct {
		stored  string
		current bool
		want    Display
	}{
		{"", false, Display{Word: Word{WordStep, ""}}},
		{"queued", true, Display{Word: Word{WordStep, "queued"}, Selected: true, Waiting: true}},
		{"dispatched:coder", true, Display{Word: Word{WordStep, "dispatched:coder"}, Mood: MoodProgress, Selected: true, Live: true}},
		{"owned_by_lane:coder", false, Display{Word: Word{WordStep, "owned_by_lane:coder"}, Mood: MoodProgress, Live: true}},
		{"review_pending", false, Display{Word: Word{WordStep, "review_pending"}, Mood: MoodProgress, Need: NeedReview}},
		{"failed:worker_exit_nonzero", false, Display{Word: Word{WordStep, "failed:worker_exit_nonzero"}, Mood: MoodBad, Need: NeedFailed}},
		{"failed:run_abandoned", false, Display{Word: Word{WordStep, "failed:run_abandoned"}, Mood: MoodBad}},
		{"completed", false, Display{Word: Word{WordStep, "completed"}, Mood: MoodGood}},
		{"lease_released:coder", false, Display{Word: Word{WordStep, "lease_released:coder"}}},
		{"verified", false, Display{Word: Word{WordStep, "verified"}, Mood: MoodGood}},
	} {
		if got := Step(tc.stored, tc.current, false); got != tc.want {
			t.Errorf("Step(%q, %v) = %+v, want %+v", tc.stored, tc.current, got, tc.want)
		}
	}
	// A pipeline DONE finishes the steps it released or never reached.
	for _, stored := range []string{"", "lease_released:coder"} {
		if d := Step(stored, false, true); d.Mood != MoodGood {
			t.Errorf("Step(%q) of a DONE pipeline: %+v", stored, d)
		}
	}
}
