package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daokit/daokit/ledger"
)

// TestPythonSQLiteRootIsRefusedNotSplit: a root the Python tool runs on
// its SQLite backend (the environment variable on its run, or the
// settings file) is refused by daokit's writing commands with the
// setting named, and left byte for byte as the Python tool wrote it;
// reading commands still read it.
func TestPythonSQLiteRootIsRefusedNotSplit(t *testing.T) {
	t.Parallel()
	py := os.Getenv(pythonSrcEnv)
	for _, how := range []string{"env", "settings"} {
		root := t.TempDir()
		state := filepath.Join(root, ledger.StateDir)
		setting := ledger.StateDir + "/" + ledger.PythonSQLiteFile
		if how == "settings" {
			setting = "state.backend=sqlite"
		}
		if py != "" {
			runPython(t, py, "init", "--root", root)
			if how == "settings" {
				if err := os.WriteFile(filepath.Join(state, ledger.RuntimeSettingsFile), []byte(`{"state": {"backend": "sqlite"}}`), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := pythonCmd(py, "run", "--root", root, "--task-id", "DKT-300", "--run-id", "RUN-A", "--goal", "On SQLite", "--simulate-interruption")
			if how == "env" {
				cmd.Env = append(cmd.Env, ledger.PythonBackendEnv+"=sqlite")
			}
			if out, _ := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 130 {
				t.Fatalf("python run on SQLite (%s): exit %d\n%s", how, cmd.ProcessState.ExitCode(), out)
			}
			if _, err := os.Stat(filepath.Join(state, ledger.PythonSQLiteFile)); err != nil {
				t.Fatalf("the Python run made no database: %v", err)
			}
		} else {
			t.Logf("%s not set: the recorded ledger with a database beside it", pythonSrcEnv)
			root = copyTree(t, filepath.Join("..", "cmd", "daokit", "testdata", "python", "interrupted"))
			state = filepath.Join(root, ledger.StateDir)
			name, content := ledger.PythonSQLiteFile, "SQLite format 3\x00"
			if how == "settings" {
				name, content = ledger.RuntimeSettingsFile, `{"state": {"backend": "sqlite"}}`
			}
			if err := os.WriteFile(filepath.Join(state, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		before := dirBytes(t, state)
		for _, args := range [][]string{
			{"takeover", "--root", root, "--successor-thread-id", "succ", "--successor-pid", "4242"},
			{"handoff", "--root", root, "--create"},
			{"send", "--root", root, "hello"},
		} {
			r := run(t, args...)
			if r.code == 0 || !strings.Contains(r.stderr, "SQLite backend") || !strings.Contains(r.stderr, setting) {
				t.Errorf("%s on a SQLite root (%s): %+v", args[0], how, r)
			}
		}
		if after := dirBytes(t, state); !bytes.Equal(after, before) {
			t.Errorf("a refused command changed the SQLite root (%s)", how)
		}
		if r := run(t, "status", "--root", root); r.code != 0 || !strings.Contains(r.stdout, "DKT-300") {
			t.Errorf("status on a SQLite root (%s): %+v", how, r)
		}
	}
}

// dirBytes is every file of dir, concatenated by name.
func dirBytes(t *testing.T, dir string) []byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(append(out, e.Name()...), 0), data...)
	}
	return out
}
