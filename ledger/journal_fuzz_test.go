package ledger

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzRecoverJournal opens a ledger holding any commit journal: Open
// never fails on it, never cuts events.jsonl, and leaves each document
// either as it was or as a version the journal holds for it.
func FuzzRecoverJournal(f *testing.F) {
	f.Add([]byte(`{"docs":[],"events_offset":0,"events":null}`))
	f.Add([]byte(`{"docs":[{"name":"daokit.lock","new":"e30K","existed":false}],"events_offset":0,"events":null}`))
	f.Add([]byte(`{"docs":[],"events_offset":999999,"events":"e30K"}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, data []byte) {
		root := commitRoot(t)
		writeFile(t, statePath(root, EventsFile), pythonState(t, "taken-over", EventsFile))
		before := stateFiles(t, root)
		writeFile(t, statePath(root, JournalFile), data)
		s, err := Open(root, Options{Now: fixedClock})
		if err != nil {
			t.Fatalf("open with journal %q: %v", data, err)
		}
		_ = s.Close()
		after := stateFiles(t, root)
		if !bytes.HasPrefix([]byte(after[EventsFile]), []byte(before[EventsFile])) {
			t.Fatalf("events cut: %q", after[EventsFile])
		}
		if _, ok := after[JournalFile]; ok {
			t.Fatalf("journal left")
		}
		var j journal
		_ = json.Unmarshal(data, &j)
		for _, name := range []string{PipelineFile, LeasesFile, HeartbeatFile} {
			if after[name] == before[name] {
				continue
			}
			ok := false
			for _, d := range j.Docs {
				ok = ok || (d.Name == name && string(d.New) == after[name])
			}
			if !ok {
				t.Fatalf("%s became a version the journal does not hold:\n%s", name, after[name])
			}
		}
		for name := range after {
			if _, had := before[name]; !had && name != EventsFile {
				t.Fatalf("recovery created %s", name)
			}
		}
	})
}
