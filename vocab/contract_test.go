package vocab_test

import (
	"slices"
	"testing"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// TestContractWords: the ledger declares its contract's statuses (it
// imports nothing of daokit's); the vocabulary labels the same words.
func TestContractWords(t *testing.T) {
	t.Parallel()
	for _, s := range ledger.PipelineStatuses() {
		if !slices.Contains(vocab.Statuses(), vocab.Status(s)) {
			t.Errorf("pipeline status %s is not in the vocabulary", s)
		}
	}
	if len(vocab.Statuses()) != len(ledger.PipelineStatuses()) {
		t.Errorf("the vocabulary has %d pipeline statuses, the contract %d", len(vocab.Statuses()), len(ledger.PipelineStatuses()))
	}
	for _, e := range ledger.EventTypes() {
		if !vocab.EventType(e).Known() {
			t.Errorf("event type %s is not in the vocabulary", e)
		}
	}
	if !slices.Equal(strs(vocab.Severities()), ledger.Severities()) {
		t.Errorf("severities: the vocabulary has %v, the contract %v", vocab.Severities(), ledger.Severities())
	}
	if !slices.Equal(strs(vocab.LeaseStatuses()), ledger.LeaseStatuses()) {
		t.Errorf("lease statuses: the vocabulary has %v, the contract %v", vocab.LeaseStatuses(), ledger.LeaseStatuses())
	}
	for _, s := range ledger.HeartbeatStatuses() {
		if !slices.Contains(vocab.Healths(), vocab.Health(s)) {
			t.Errorf("heartbeat status %s is not in the vocabulary", s)
		}
	}
}

func strs[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
