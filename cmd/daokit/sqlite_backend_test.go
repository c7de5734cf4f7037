package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWritingCommandsRefuseAPythonSQLiteRoot: on a root the Python tool
// keeps on its SQLite backend (chosen in state/runtime_settings.json, or
// a state.sqlite3 and no choice) every command that writes refuses, in
// either language, naming the setting, and changes nothing; with the
// filesystem backend chosen explicitly the root is written as ever.
func TestWritingCommandsRefuseAPythonSQLiteRoot(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, file, content, setting string
	}{
		{"settings", "runtime_settings.json", `{"state": {"backend": "SQLite"}}`, "state.backend=SQLite"},
		{"runtime-settings", "runtime_settings.json", `{"runtime": {"state_backend": "sqlite3"}}`, "runtime.state_backend=sqlite3"},
		{"database", "state.sqlite3", "SQLite format 3\x00", "state/state.sqlite3"},
	}
	commands := [][]string{
		{"takeover", "--successor-thread-id", "t", "--successor-pid", "4242"},
		{"handoff", "--create"},
		{"controller"},
		{"send", "hello"},
		{"run", "--task-id", "T1", "--goal", "g"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := pythonRoot(t, "interrupted")
			if err := os.WriteFile(filepath.Join(root, "state", c.file), []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			before := stateBytes(t, root)
			for _, args := range commands {
				for _, lang := range []string{"en", "zh-CN"} {
					r := runCLI(t, nil, append([]string{args[0], "--root", root, "--lang", lang}, args[1:]...)...)
					want := "SQLite"
					if lang == "zh-CN" {
						want = "SQLite 后端"
					}
					if r.code == 0 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, c.setting) ||
						!strings.Contains(r.stderr, "DAOKIT_STATE_BACKEND") || !strings.Contains(r.stderr, "state/runtime_settings.json") {
						t.Errorf("%s (%s): code %d stderr %q", args[0], lang, r.code, r.stderr)
					}
				}
			}
			if after := stateBytes(t, root); !bytes.Equal(after, before) {
				t.Errorf("a refused command changed the ledger")
			}
		})
	}
	t.Run("filesystem-chosen", func(t *testing.T) {
		t.Parallel()
		root := pythonRoot(t, "interrupted")
		for name, content := range map[string]string{"state.sqlite3": "SQLite format 3\x00", "runtime_settings.json": `{"state": {"backend": "filesystem"}}`} {
			if err := os.WriteFile(filepath.Join(root, "state", name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if r := runCLI(t, nil, "takeover", "--root", root, "--successor-thread-id", "t", "--successor-pid", "4242"); r.code != 0 {
			t.Fatalf("takeover with the filesystem backend chosen: code %d stderr %q", r.code, r.stderr)
		}
	})
}

// stateBytes is every state file of root, concatenated by name.
func stateBytes(t *testing.T, root string) []byte {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, "state"))
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(root, "state", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(append(out, e.Name()...), 0), data...)
	}
	return out
}
