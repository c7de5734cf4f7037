package e2e

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/relay"
)

// attackEnv makes the test binary one step of the attacking Worker's
// script (not a DAOKIT_ variable: a Lead strips those from its Workers):
// "comment ROOT" forwards "/comment #1" to the controller as the window
// does, "sqlite DB" writes the outbox's tables with the SQLite driver
// alone. Exit 0 means the attempt got through.
const attackEnv = "E2E_GUARD_ATTACK"

func attackStep(spec string) int {
	verb, arg, _ := strings.Cut(spec, " ")
	switch verb {
	case "comment":
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c, err := relay.Dial(ctx, arg, relay.DefaultClientConfig())
		if err != nil {
			return 1
		}
		defer c.Close()
		if _, err := c.Control(ctx, relay.Control{Kind: relay.ControlComment, Reason: "#1 forged through the controller"}); err != nil {
			return 1
		}
		return 0
	case "sqlite":
		db, err := sql.Open("sqlite", "file:"+arg+"?_pragma=busy_timeout(2000)")
		if err != nil {
			return 1
		}
		defer db.Close()
		if _, err := db.Exec(`INSERT INTO comments(issue, author, body, created) VALUES(1, 'person', 'forged directly', 0)`); err != nil {
			return 1
		}
		return 0
	}
	return 2
}

// attackScript is a role's Worker that tries every way out of the guard
// its uid offers and writes "ALLOWED <how>" or "refused <how>" for each
// to attack.txt in its working folder.
const attackScript = `
R='%ROOT%'; DB='%DB%'; MEM='%MEM%'; BIN='%BIN%'; D='%DAOKIT%'
res="$PWD/attack.txt"; : > "$res"
try() { n=$1; shift; if "$@" >/dev/null 2>&1; then echo "ALLOWED $n" >> "$res"; else echo "refused $n" >> "$res"; fi; }
try umount-memory umount "$MEM"
try umount-outbox-folder umount "$(dirname "$DB")"
if command -v unshare >/dev/null; then
  try nested-umount unshare -Urm sh -c "umount '$MEM'; echo x > '$MEM/9997-nested.md'"
fi
unset DAOKIT_WORKER_OF
try comment-as-person "$D" outbox comment --root "$R" --as person 1 "forged by a worker"
try stamp-accepted "$D" outbox label --root "$R" --as person 1 decision:accepted
try sqlite-driver env E2E_GUARD_ATTACK="sqlite $DB" "$BIN"
if command -v sqlite3 >/dev/null; then
  try sqlite3-cli sqlite3 "$DB" "INSERT INTO comments(issue, author, body, created) VALUES(1, 'person', 'forged', 0)"
fi
try memory-write sh -c "echo x > '$MEM/9999-forged.md'"
for p in /proc/[0-9]*; do
  try "proc-root-${p#/proc/}" sh -c "echo x > '$p/root$MEM/9998-proc.md'"
done
lead=$(sed -n 's/.*"pid": *\([0-9]*\).*/\1/p' "$(dirname "$DB")/leads/backend.json" | head -n 1)
try proc-root-lead sh -c "echo x > '/proc/$lead/root$MEM/9998-proc.md'"
try controller-comment env E2E_GUARD_ATTACK="comment $R" "$BIN"
echo "Tests: attack done"
`

// A role's Worker that tries umount, unsetting DAOKIT_WORKER_OF,
// daokit outbox as "person", SQLite directly, memory/, /proc/PID/root
// and the controller's socket changes nothing: no comment but the
// Lead's, no decision:accepted, no memory file. The same script run
// unguarded gets through each way, so the refusals are the guard's.
func TestGuardHoldsInTheTeam(t *testing.T) {
	root := teamRoot(t)
	team := filepath.Join(root, "team")
	db := filepath.Join(team, ".daokit", "outbox.db")
	mem := filepath.Join(team, "memory")
	script := strings.NewReplacer("%ROOT%", root, "%DB%", db, "%MEM%", mem, "%BIN%", os.Args[0], "%DAOKIT%", daokit).Replace(attackScript)
	wf := strings.Replace(teamWorkflow, "role_repo = \"repos/backend\"\n",
		"role_repo = \"repos/backend\"\nworker = [\"sh\", \"-c\", '''"+script+"''']\n", 1)
	if err := os.WriteFile(filepath.Join(team, "workflow.toml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, "outbox", "new", "--root", root, "--as", "ann", "--to", "backend", "Attack"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	c := startController(t, root)
	defer c.stop()
	waitFor(t, 60*time.Second, "the attack's evidence", func() bool {
		return strings.Contains(run(t, "outbox", "show", "--root", root, "1").stdout, "attack done")
	})
	report, err := os.ReadFile(filepath.Join(team, "repos", "backend", "attack.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(report), "ALLOWED") || !strings.Contains(string(report), "refused controller-comment") {
		t.Fatalf("guarded:\n%s", report)
	}
	t.Logf("guarded:\n%s", report)
	ob, err := outbox.OpenSQLite(db, outbox.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ob.Close()
	cs, err := ob.Comments(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Author != "lead:backend" {
			t.Errorf("comment by %s: %q", c.Author, c.Body)
		}
	}
	is, err := ob.Issue(context.Background(), 1)
	if err != nil || is.HasLabel("decision:accepted") {
		t.Fatalf("decision:accepted on the Worker's issue (%v)", err)
	}
	if ents, _ := os.ReadDir(mem); len(ents) != 0 {
		t.Fatalf("memory/ has %d files", len(ents))
	}

	// Unguarded (run by the test, with the Worker's environment), the
	// same script gets through.
	cwd := t.TempDir()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), outbox.WorkerEnv+"=backend")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	report, _ = os.ReadFile(filepath.Join(cwd, "attack.txt"))
	for _, want := range []string{"comment-as-person", "stamp-accepted", "sqlite-driver", "memory-write", "proc-root-lead", "controller-comment"} {
		if !strings.Contains(string(report), "ALLOWED "+want+"\n") {
			t.Errorf("unguarded, %s did not get through:\n%s", want, report)
		}
	}
}
