package ledgertest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// AppendEvents appends event lines to root's state/events.jsonl the way
// another writer (the Python tool) does: opened with O_APPEND, outside
// daokit's store, one write per line, a newline added where missing.
// Tests use it to show that readers and watchers see a foreign write.
func AppendEvents(t testing.TB, root string, lines ...[]byte) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(root, "state", "events.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, line := range lines {
		if !bytes.HasSuffix(line, []byte{'\n'}) {
			line = append(line[:len(line):len(line)], '\n')
		}
		if _, err := f.Write(line); err != nil {
			t.Fatal(err)
		}
	}
}
