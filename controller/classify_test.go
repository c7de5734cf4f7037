package controller

import (
	"context"
	"errors"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/vocab"
	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/worker/transcript"
)

func TestClassify(t *testing.T) {
	ok := worker.Result{ExitCode: 0}
	failedResult := worker.Result{Summary: worker.Summary{Result: &transcript.Event{Type: transcript.EventResult, Failed: true}}}
	goodResult := worker.Result{Summary: worker.Summary{Result: &transcript.Event{Type: transcript.EventResult}}}
	stopped := func(c transcript.StopCause) worker.Result {
		return worker.Result{ExitCode: -1, Signal: syscall.SIGTERM, Stopped: c}
	}
	agent := func(code int, failure string) worker.Result {
		r := worker.Result{ExitCode: code, Summary: worker.Summary{Result: &transcript.Event{Type: transcript.EventResult, Failed: code != 0}}}
		r.Summary.Failure = failure
		return r
	}
	denied := func(r worker.Result) worker.Result {
		r.Summary.Denied = []worker.Denial{{Tool: "Edit", Target: "main.go"}}
		return r
	}
	tests := []struct {
		name string
		f    Failure
		want string
	}{
		{"success", Failure{Result: ok}, ""},
		{"success with a result", Failure{Result: goodResult, RequireResult: true}, ""},
		{"spawn error wins", Failure{SpawnErr: exec.ErrNotFound, Cancelled: true}, ReasonSpawnFailed},
		{"exit 3", Failure{Result: worker.Result{ExitCode: 3}}, ReasonExitNonzero},
		{"exit 137 from a shell is an exit", Failure{Result: worker.Result{ExitCode: 137}}, ReasonExitNonzero},
		{"killed by someone else", Failure{Result: worker.Result{ExitCode: -1, Signal: syscall.SIGKILL}}, ReasonKilledSignal},
		{"timeout", Failure{Result: stopped(transcript.StopTimeout)}, ReasonTimeout},
		{"cancel via result", Failure{Result: stopped(transcript.StopCancelled)}, ReasonCancelled},
		{"cancel via flag", Failure{Result: worker.Result{ExitCode: 130}, Cancelled: true}, ReasonCancelled},
		{"hung via result", Failure{Result: stopped(transcript.StopHung)}, ReasonHung},
		{"hung via flag beats the signal", Failure{Result: worker.Result{ExitCode: -1, Signal: syscall.SIGKILL}, Hung: true}, ReasonHung},
		{"lease lost", Failure{Result: stopped(transcript.StopLeaseLost)}, ReasonLeaseLost},
		{"taken over by a person, through this controller", Failure{Result: stopped(transcript.StopTakenOver)}, ReasonManualTakeover},
		{"lease lost via flag", Failure{Result: ok, LeaseLost: true}, ReasonLeaseLost},
		{"cancel beats timeout", Failure{Result: stopped(transcript.StopTimeout), Cancelled: true}, ReasonCancelled},
		{"worker said it failed", Failure{Result: failedResult}, ReasonReportedFailure},
		{"failed result via flag", Failure{Result: ok, ResultFailed: true}, ReasonReportedFailure},
		{"exit code beats the result", Failure{Result: worker.Result{ExitCode: 2, Summary: failedResult.Summary}}, ReasonExitNonzero},
		{"agent without a result", Failure{Result: ok, RequireResult: true}, ReasonOutputInvalid},
		{"command without a result is fine", Failure{Result: ok}, ""},
		// Both CLIs exit 1 when their own result says failure: the result
		// names it, the exit code does not.
		{"401 beats exit 1", Failure{Result: agent(1, transcript.FailAuth)}, ReasonAgentAuth},
		{"not logged in", Failure{Result: agent(1, transcript.FailNotLoggedIn)}, ReasonAgentNotLoggedIn},
		{"rate limited", Failure{Result: agent(1, transcript.FailRateLimited)}, ReasonAgentRateLimited},
		{"provider error", Failure{Result: agent(1, transcript.FailProvider)}, ReasonAgentProvider},
		{"max turns", Failure{Result: agent(1, transcript.FailMaxTurns)}, ReasonAgentMaxTurns},
		{"refused option, exit 2", Failure{Result: agent(2, transcript.FailOptionRefused)}, ReasonAgentOptionRefused},
		{"a clean exit whose model answered nothing", Failure{Result: agent(0, transcript.FailNoAnswer), RequireResult: true}, ReasonAgentNoAnswer},
		{"a refusal of the model", Failure{Result: agent(1, transcript.FailRefused)}, ReasonAgentRefused},
		{"a denial fails a clean exit", Failure{Result: denied(agent(0, ""))}, ReasonAgentDenied},
		{"a denial beats the turn limit it caused", Failure{Result: denied(agent(1, transcript.FailMaxTurns))}, ReasonAgentDenied},
		{"a refused login beats a denial", Failure{Result: denied(agent(1, transcript.FailAuth))}, ReasonAgentAuth},
		{"stopped for a futile retry", Failure{Result: stopped(transcript.StopAgentFailed)}, ReasonAgentAuth},
		{"a cancel beats the agent's verdict", Failure{Result: agent(1, transcript.FailAuth), Cancelled: true}, ReasonCancelled},
		{"an unknown failure kind is an exit", Failure{Result: agent(1, "future_kind")}, ReasonExitNonzero},
	}
	for _, tt := range tests {
		if got := classify(tt.f); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestReasonPolicy(t *testing.T) {
	tests := []struct {
		reason      string
		restartable bool
	}{
		{"", false},
		{ReasonExitNonzero, true},
		{ReasonKilledSignal, true},
		{ReasonTimeout, false},
		{ReasonCancelled, false},
		{ReasonSpawnFailed, false},
		{ReasonOutputInvalid, true},
		{ReasonReportedFailure, false},
		{ReasonHung, true},
		{ReasonLeaseLost, false},
		{ReasonManualTakeover, true},
		{ReasonRestartLimit, false},
		{ReasonInterrupted, false},
		{ReasonLedgerWrite, false},
		{ReasonWorktree, false},
		{ReasonSetupFailed, false},
		{ReasonSetupNotAllowed, false},
		{ReasonRejected, false},
		{ReasonMergeConflict, false},
		{ReasonMergeNotFF, false},
		{ReasonMergeFailed, false},
		{ReasonNothingToDeliver, false},
		{ReasonDiverged, false},
		{ReasonPRPushFailed, false},
		{ReasonPROpenFailed, false},
		{ReasonPRNotConfigured, false},
		{ReasonSessionOtherStep, false},
		{ReasonSessionOtherFolder, false},
		// What the agent CLI said went wrong: a restart would meet it again.
		{ReasonAgentDenied, false},
		{ReasonAgentAuth, false},
		{ReasonAgentNotLoggedIn, false},
		{ReasonAgentRateLimited, false},
		{ReasonAgentProvider, false},
		{ReasonAgentMaxTurns, false},
		{ReasonAgentOptionRefused, false},
		{ReasonBudgetExceeded, false},
		{ReasonAgentNoAnswer, false},
		{ReasonAgentRefused, false},
	}
	if len(tests) != len(Reasons())+1 {
		t.Fatalf("table covers %d reasons, Reasons() has %d", len(tests)-1, len(Reasons()))
	}
	for _, tt := range tests {
		if got := restartable(tt.reason); got != tt.restartable {
			t.Errorf("Restartable(%q): got %v, want %v", tt.reason, got, tt.restartable)
		}
	}
	if ReasonRestartLimit != heal.ReasonRestartLimit {
		t.Errorf("restart limit code differs from heal's: %q vs %q", ReasonRestartLimit, heal.ReasonRestartLimit)
	}
}

func TestEveryCodeAndStateIsTranslated(t *testing.T) {
	for _, lang := range i18n.Supported() {
		loc, err := i18n.New(lang)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]string{}
		for _, r := range Reasons() {
			got := ReasonText(loc, r)
			if got == vocab.ReasonCatalog+r || got == "" {
				t.Errorf("%s: reason %s has no label", lang, r)
			}
			if prev, dup := seen[got]; dup {
				t.Errorf("%s: reasons %s and %s share the label %q", lang, prev, r, got)
			}
			seen[got] = r
		}
		for _, s := range states() {
			if got := vocab.RunState(s).Label(loc); got == vocab.StateCatalog+s || got == "" {
				t.Errorf("%s: state %s has no label", lang, s)
			}
		}
		if got := ReasonText(loc, "FUTURE_CODE"); got != "FUTURE_CODE" {
			t.Errorf("%s: unknown code shown as %q, want it as it is", lang, got)
		}
	}
}

// TestClassifyRealWorkers classifies how real child processes end.
func TestClassifyRealWorkers(t *testing.T) {
	tests := []struct {
		name    string
		spec    worker.Spec
		stop    transcript.StopCause
		want    string
		require bool
	}{
		{"exit 0", worker.Spec{Argv: []string{"true"}}, "", "", false},
		{"exit 3", worker.Spec{Argv: []string{"sh", "-c", "exit 3"}}, "", ReasonExitNonzero, false},
		{"killed", worker.Spec{Argv: []string{"sh", "-c", "kill -KILL $$"}}, "", ReasonKilledSignal, false},
		{"timeout", worker.Spec{Argv: []string{"sleep", "30"}, Timeout: 50 * time.Millisecond, StopGrace: time.Second}, "", ReasonTimeout, false},
		{"hung", worker.Spec{Argv: []string{"sleep", "30"}, StopGrace: time.Second}, transcript.StopHung, ReasonHung, false},
		{"agent stream without a result", worker.Spec{Argv: []string{"echo", `{"type":"system","subtype":"init","session_id":"s"}`}, Kind: "claude"}, "", ReasonOutputInvalid, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := worker.Start(context.Background(), tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			p.Discard()
			if tt.stop != "" {
				p.Stop(tt.stop)
			}
			got := classify(Failure{Result: p.Wait(), RequireResult: tt.require || requiresResult(tt.spec.Kind)})
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	_, err := worker.Start(context.Background(), worker.Spec{Argv: []string{"daokit-no-such-program"}})
	if got := classify(Failure{SpawnErr: err}); got != ReasonSpawnFailed || !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("spawn failure: got %q (%v), want %q", got, err, ReasonSpawnFailed)
	}
}

// Reasons lists (for the tests that every one is classified and worded) the reason codes of a worker's or a step's end that the
// controller gives (vocab.Reasons has every reason code).
func Reasons() []string {
	return []string{ReasonExitNonzero, ReasonKilledSignal, ReasonTimeout, ReasonCancelled, ReasonSpawnFailed,
		ReasonOutputInvalid, ReasonReportedFailure, ReasonHung, ReasonLeaseLost, ReasonManualTakeover, ReasonRestartLimit,
		ReasonInterrupted, ReasonLedgerWrite, ReasonWorktree, ReasonSetupFailed, ReasonSetupNotAllowed,
		ReasonRejected, ReasonMergeConflict, ReasonMergeNotFF, ReasonMergeFailed,
		ReasonNothingToDeliver, ReasonDiverged, ReasonPRPushFailed, ReasonPROpenFailed, ReasonPRNotConfigured,
		ReasonSessionOtherStep, ReasonSessionOtherFolder,
		ReasonAgentDenied, ReasonAgentAuth, ReasonAgentNotLoggedIn, ReasonAgentRateLimited, ReasonAgentProvider,
		ReasonAgentMaxTurns, ReasonAgentOptionRefused, ReasonAgentNoAnswer, ReasonAgentRefused, ReasonBudgetExceeded}
}
