package projection

import (
	"slices"
	"testing"

	"github.com/daokit/daokit/vocab"
)

// TestSettled: what pipeline.json and the route say of a run, with
// what its events said, projected as the window's attention and the
// pipeline pane show it: the need, the controls the banner offers, and
// the word. A run a person cancelled or dropped never calls for them,
// whatever the pipeline's status says for the contract's sake.
func TestSettled(t *testing.T) {
	heard := Entry{TaskID: "T1", RunID: "R1", StepID: "S1", Reason: vocab.ReasonMaxIterations}
	cancelled := Entry{TaskID: "T1", RunID: "R1", State: vocab.StateCancelled}
	endedCancelled := Entry{TaskID: "T1", RunID: "R1", State: vocab.StateFailed, Final: vocab.StatusFailed, Reason: vocab.ReasonCancelled}
	abandoned := Entry{TaskID: "T1", RunID: "R1", Final: vocab.StatusFailed, Reason: vocab.ReasonAbandoned}
	for _, tc := range []struct {
		name    string
		heard   Entry
		status  vocab.Status
		next    vocab.Next
		need    Need
		suggest []Control
		word    Word
	}{
		{"executing", heard, vocab.StatusExecute, vocab.NextWorking, NeedNone, nil, Word{Kind: WordReceived}},
		{"blocked by status", heard, vocab.StatusBlocked, "", NeedBlocked, []Control{ControlRetry, ControlCancel}, Word{WordPipeline, "BLOCKED"}},
		{"blocked by the route", heard, vocab.StatusExecute, vocab.NextAwait, NeedBlocked, []Control{ControlRetry, ControlCancel}, Word{WordPipeline, "BLOCKED"}},
		{"failed", heard, vocab.StatusFailed, "", NeedFailed, []Control{ControlRetry, ControlCancel}, Word{WordPipeline, "FAILED"}},
		{"failed by the route", heard, vocab.StatusExecute, vocab.NextRetry, NeedFailed, []Control{ControlRetry, ControlCancel}, Word{WordPipeline, "FAILED"}},
		{"review", heard, vocab.StatusAccept, "", NeedReview, []Control{ControlAccept, ControlReject}, Word{Kind: WordReview}},
		{"review by the route", heard, vocab.StatusExecute, vocab.NextReview, NeedReview, []Control{ControlAccept, ControlReject}, Word{Kind: WordReview}},
		{"done", heard, vocab.StatusDone, vocab.NextDone, NeedNone, nil, Word{WordPipeline, "DONE"}},
		{"done by the route", heard, "", vocab.NextDone, NeedNone, nil, Word{WordPipeline, "DONE"}},
		{"cancelled while running", cancelled, vocab.StatusFailed, vocab.NextRetry, NeedNone, nil, Word{WordRun, "cancelled"}},
		{"cancelled after it ended", endedCancelled, vocab.StatusFailed, vocab.NextDone, NeedNone, nil, Word{WordRun, "cancelled"}},
		{"abandoned while waiting", abandoned, vocab.StatusFailed, vocab.NextDone, NeedNone, nil, Word{WordAbandoned, "RUN_ABANDONED"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := Settled(tc.heard, tc.status, tc.next)
			d := Project(e, true)
			if going := tc.name == "executing"; e.Going() != going {
				t.Errorf("Going = %v, want %v", e.Going(), going)
			}
			if done := tc.word == (Word{WordPipeline, "DONE"}); d.Done() != done {
				t.Errorf("Done = %v, want %v", d.Done(), done)
			}
			if d.Need != tc.need || d.Word != tc.word || !slices.Equal(d.Need.Suggest(), tc.suggest) {
				t.Errorf("got need %v word %+v suggest %v; want %v %+v %v", d.Need, d.Word, d.Need.Suggest(), tc.need, tc.word, tc.suggest)
			}
			if d.NeedsYou() != (tc.need != NeedNone) {
				t.Errorf("NeedsYou %v with need %v", d.NeedsYou(), d.Need)
			}
		})
	}
}

// TestPipeline: the pipeline pane's status word is the status, except
// for a run a person ended, which shows what they did.
func TestPipeline(t *testing.T) {
	run := Entry{TaskID: "T1", RunID: "R1"}
	if d := Pipeline(vocab.StatusExecute, run); d.Word != (Word{WordPipeline, "EXECUTE"}) || d.Mood != MoodProgress || !d.Live {
		t.Errorf("executing: %+v", d)
	}
	for _, s := range []vocab.Status{vocab.StatusBlocked, vocab.StatusFailed, vocab.StatusDone, vocab.StatusAccept} {
		if d := Pipeline(s, run); d.Live {
			t.Errorf("%s: an agent at work", s)
		}
	}
	if d := Pipeline("", run); d.Mood != MoodQuiet {
		t.Errorf("no status: %+v", d)
	}
	run.State = vocab.StateCancelled
	if d := Pipeline(vocab.StatusFailed, run); d.Word != (Word{WordRun, "cancelled"}) || d.Mood != MoodQuiet || d.NeedsYou() {
		t.Errorf("cancelled: %+v", d)
	}
}

// TestRunGoesAgain: a run that goes again after a cancel is not
// cancelled any more, even when its next end names no reason.
func TestRunGoesAgain(t *testing.T) {
	e := Entry{TaskID: "T1", RunID: "R1"}
	e.Fold(Update{TaskID: "T1", RunID: "R1", Final: vocab.StatusFailed, Reason: vocab.ReasonCancelled})
	if !e.Cancelled() {
		t.Fatalf("a run whose end says cancelled: %+v", e)
	}
	e.Fold(Update{TaskID: "T1", RunID: "R1", StepID: "S1", State: vocab.StateGenerating})
	e.Fold(Update{TaskID: "T1", RunID: "R1", Final: vocab.StatusBlocked})
	if d := Project(e, false); e.Cancelled() || d.Need != NeedBlocked {
		t.Fatalf("the run went again and blocked: %+v → %+v", e, d)
	}
}

// TestNeedWords: every need has its own name (the catalog ids'
// suffix) and a need that calls for a person suggests what to type.
func TestNeedWords(t *testing.T) {
	seen := map[string]bool{}
	for _, n := range []Need{NeedNone, NeedFinished, NeedFailed, NeedBlocked, NeedReview} {
		if seen[n.String()] {
			t.Errorf("%d: name %q twice", n, n)
		}
		seen[n.String()] = true
		if calls := n == NeedFailed || n == NeedBlocked || n == NeedReview; calls != (len(n.Suggest()) > 0) {
			t.Errorf("%v suggests %v", n, n.Suggest())
		}
	}
}
