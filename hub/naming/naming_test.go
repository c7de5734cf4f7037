package naming

import "testing"

func TestRootNamesCarryTheRootAndNothingElse(t *testing.T) {
	r, err := ForRoot("team-a_1")
	if err != nil {
		t.Fatal(err)
	}
	for got, want := range map[string]string{
		r.All():                 "daokit.team-a_1.>",
		r.LedgerStream():        "DAOKIT_team-a_1_LEDGER",
		r.LedgerSubject():       "daokit.team-a_1.ledger",
		r.InstructionStream():   "DAOKIT_team-a_1_INSTR",
		r.InstructionSubject():  "daokit.team-a_1.instr",
		r.AnswerBucket():        "DAOKIT_team-a_1_ANSWERS",
		r.StepStream():          "DAOKIT_team-a_1_STEPS",
		r.StepSubject("gpu"):    "daokit.team-a_1.steps.gpu",
		r.StepSubjects():        "daokit.team-a_1.steps.*",
		r.ResultStream():        "DAOKIT_team-a_1_RESULTS",
		r.ResultSubject("s-12"): "daokit.team-a_1.results.s-12",
		r.ResultSubjects():      "daokit.team-a_1.results.*",
		r.LiveSubject("s-12"):   "daokit.team-a_1.live.s-12",
		r.LiveSubjects():        "daokit.team-a_1.live.*",
		r.OutboxStream():        "DAOKIT_team-a_1_OUTBOX",
		r.OutboxSubjects():      "daokit.team-a_1.outbox.>",
		r.LeaseBucket():         "DAOKIT_team-a_1_LEASE",
	} {
		if got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}

// An id that would break a subject (dots, wildcards, spaces), a stream
// or directory name (slashes), or collide across case is refused.
func TestRootIDsThatWouldLeakAreRefused(t *testing.T) {
	for _, id := range []string{"", "a.b", "a*", ">", "a b", "a/b", "..", "Alpha", "-a", "_a", "é", string(make([]byte, 65))} {
		if _, err := ForRoot(id); err == nil {
			t.Errorf("root id %q accepted", id)
		}
	}
	for _, id := range []string{"a", "0", "team-a", "x_1", "abcdefghijklmnopqrstuvwxyz0123456789-abcdefghijklmnopqrstuvwxyz01"[:64]} {
		if _, err := ForRoot(id); err != nil {
			t.Errorf("root id %q refused: %v", id, err)
		}
	}
	if ValidToken("gpu.x") == nil || ValidToken("gpu") != nil {
		t.Error("ValidToken does not follow the root id rule")
	}
}
