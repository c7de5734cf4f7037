package e2e

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
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
		// Within the heartbeat's stale bound (2 s here): a Worker that
		// waited longer would be restarted before it reports.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
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
try() { n=$1; shift; echo "trying $n"; if "$@" >/dev/null 2>&1; then echo "ALLOWED $n" >> "$res"; else echo "refused $n" >> "$res"; fi; }
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
if "$D" outbox show --root "$R" 1 >/dev/null 2>&1; then echo "read outbox" >> "$res"; else echo "no read outbox" >> "$res"; fi
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
	t.Cleanup(func() {
		if t.Failed() {
			r := run(t, "logs", "--root", root, "--role", "backend", "--issue", "1")
			t.Logf("the Worker's last attempt:\n%s%s", r.stdout, r.stderr)
		}
	})
	waitFor(t, 60*time.Second, "the attack's evidence", func() bool {
		return strings.Contains(run(t, "outbox", "show", "--root", root, "1").stdout, "attack done")
	})
	report, err := os.ReadFile(filepath.Join(team, "repos", "backend", "attack.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// Reading stays open: the Worker reads its issue's thread.
	if strings.Contains(string(report), "ALLOWED") || !strings.Contains(string(report), "refused controller-comment") ||
		!strings.Contains(string(report), "\nread outbox\n") {
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

// deepEnv makes the test binary start itself in a further user namespace
// until the kernel refuses one (user namespaces nest 32 deep), then run
// the command it names (fields split by \x1f) there: a system where a
// Lead cannot make the guard's user namespace, as on a kernel without
// them.
const deepEnv = "E2E_GUARD_DEEP"

func deepStep(spec string) int {
	argv := strings.Split(spec, "\x1f")
	p, err := os.StartProcess("/proc/self/exe", os.Args, &os.ProcAttr{Env: os.Environ(),
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys: &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER, Pdeathsig: syscall.SIGKILL,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}, GidMappingsEnableSetgroups: true}})
	if err != nil {
		env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, deepEnv+"=") })
		if err := syscall.Exec(argv[0], argv, env); err != nil {
			return 126
		}
	}
	st, err := p.Wait()
	if err != nil {
		return 126
	}
	return st.ExitCode()
}

// startDeepLead runs "daokit lead --role backend" where no user namespace
// can be made, in a process group of its own.
func startDeepLead(t *testing.T, root, lang string, stderr *lockedBuffer) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "DAOKIT_LANG="+lang,
		deepEnv+"="+strings.Join([]string{daokit, "lead", "--role", "backend", "--root", root}, "\x1f"))
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// Where Workers cannot be guarded, a Lead refuses to run them and says
// why in both languages (stderr, its Exit record), unless workflow.toml
// says [guard] allow_unguarded = true: then it runs them, and warns.
func TestLeadRefusesWorkersItCannotGuard(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to nest user namespaces with every uid mapped")
	}
	root := teamRoot(t)
	team := filepath.Join(root, "team")
	if r := run(t, "outbox", "new", "--root", root, "--to", "backend", "Guarded"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	for lang, want := range map[string]string{"en": "refuses to run Workers: they cannot be guarded here", "zh-CN": "拒绝运行 Worker：这里无法为它们建立保护"} {
		var stderr lockedBuffer
		cmd := startDeepLead(t, root, lang, &stderr)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "E_GUARD") || !strings.Contains(stderr.String(), want) {
			t.Fatalf("%s: %v: %s", lang, err, stderr.String())
		}
		t.Logf("%s: %s", lang, strings.TrimSpace(stderr.String()))
	}
	data, err := os.ReadFile(filepath.Join(team, ".daokit", "leads", "backend.exit.json"))
	if err != nil || !strings.Contains(string(data), `"reason": "GUARD_UNAVAILABLE"`) {
		t.Fatalf("exit record: %v %s", err, data)
	}
	if show := run(t, "outbox", "show", "--root", root, "1").stdout; strings.Contains(show, "lead:backend") {
		t.Fatalf("a Lead that cannot guard touched the issue:\n%s", show)
	}

	wf := teamWorkflow + "\n[guard]\nallow_unguarded = true\n"
	if err := os.WriteFile(filepath.Join(team, "workflow.toml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd := startDeepLead(t, root, "en", &stderr)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}()
	waitFor(t, 60*time.Second, "the issue done unguarded", func() bool {
		return strings.Contains(run(t, "outbox", "list", "--root", root, "--state", "closed").stdout, "Guarded")
	})
	if !strings.Contains(stderr.String(), "Workers run WITHOUT the guard") {
		t.Fatalf("no warning: %s", stderr.String())
	}
}
