package ledger

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestCheckWeighsFindingsAsTheCheckCommandDoes(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if _, err := Init(root, time.Now()); err != nil {
		t.Fatal(err)
	}
	l := Layout{Root: root}
	if rel, _ := CheckLayout(l); rel != "" {
		t.Fatalf("a fresh root misses %s", rel)
	}
	fresh := Check(l, 100)
	if fresh.Failed() || len(fresh.Findings) != 0 || fresh.Journal || fresh.HeartbeatTime != "" {
		t.Fatalf("a fresh root: %+v", fresh)
	}
	// A field outside the contract is kept; a broken register fails; a
	// line that is no event is counted; a journal left behind is noted.
	pipeline, _ := os.ReadFile(l.Pipeline())
	kept := strings.Replace(string(pipeline), "{", `{"python_only": 1,`, 1)
	for path, data := range map[string]string{
		l.Pipeline(): kept, l.Leases(): "{", l.Events(): "not an event\n", l.Path(JournalFile): "{}",
	} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := Check(l, 100)
	var kinds []FindingKind
	for _, f := range r.Findings {
		kinds = append(kinds, f.Kind)
	}
	if len(kinds) != 2 || kinds[0] != FindingKept || kinds[1] != FindingInvalid || r.Findings[1].Err == nil || !r.Failed() {
		t.Errorf("findings %+v", r.Findings)
	}
	if r.EventsSkipped != 1 || !r.Journal {
		t.Errorf("events skipped %d, journal %v", r.EventsSkipped, r.Journal)
	}
	if err := os.Remove(l.Heartbeat()); err != nil {
		t.Fatal(err)
	}
	if rel, notAFile := CheckLayout(l); rel != "state/"+HeartbeatFile || notAFile {
		t.Errorf("CheckLayout without the heartbeat: %q %v", rel, notAFile)
	}
}
