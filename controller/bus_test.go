package controller

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/workflow"
)

// lineList is a Liner that keeps what it is offered.
type lineList [][]byte

func (l *lineList) Offer(line []byte) bool { *l = append(*l, line); return true }

// TestBusCarriesWrittenEventsToSubscribers: every line the journal wrote
// reaches each subscriber as {"callback":"OnEvent","event":…}, the event
// as written; a cancelled subscriber hears nothing more.
func TestBusCarriesWrittenEventsToSubscribers(t *testing.T) {
	var b bus
	b.publish([]byte("{}\n")) // nobody listens: nothing to do
	var one, two lineList
	cancelOne := b.Subscribe(&one)
	b.Subscribe(&two)
	at := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	events := []ledger.Event{
		ledger.NewEvent(at, "T1", "R1", "", ledger.EventSystem, ledger.SeverityInfo, ledger.ObjectOf("operation", opRunState)),
		ledger.NewEvent(at, "T2", "R2", "", ledger.EventSystem, ledger.SeverityInfo, ledger.ObjectOf("operation", opRunFinished)),
	}
	lines, err := ledger.EncodeLines(events)
	if err != nil {
		t.Fatal(err)
	}
	b.publish(lines)
	cancelOne()
	b.publish(lines)
	if len(one) != 2 || len(two) != 4 {
		t.Fatalf("subscribers heard %d and %d lines, want 2 and 4", len(one), len(two))
	}
	for i, raw := range one {
		var l struct {
			Callback string       `json:"callback"`
			Event    ledger.Event `json:"event"`
		}
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatalf("line %d %q: %v", i, raw, err)
		}
		if l.Callback != workflow.LineEvent || l.Event.RunID != events[i].RunID || l.Event.Payload.String("operation") != events[i].Payload.String("operation") {
			t.Errorf("line %d: %+v", i, l)
		}
	}
}
