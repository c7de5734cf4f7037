package lead

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/team"
)

// guardFixture is a project with a ledger root (daokit.toml, state/ with
// events.jsonl, the controller's socket listening) around its outbox,
// and the plan an attacking Worker gets.
type guardFixture struct {
	p        *project
	plan     attackPlan
	planFile string
	accepted atomic.Int64 // connections the socket accepted
	snapshot map[string]string
}

func newGuardFixture(t *testing.T) *guardFixture {
	p := newProject(t, twoRoles, 20*time.Millisecond)
	root := p.dir
	if err := os.WriteFile(config.Path(root), []byte("# daokit.toml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lay := ledger.Layout{Root: root}
	if err := os.MkdirAll(lay.StateDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lay.Events(), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := relay.Listen(root)
	if err != nil {
		t.Fatal(err)
	}
	sock, err := relay.ResolveSocket(root)
	if err != nil {
		t.Fatal(err)
	}
	f := &guardFixture{p: p}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			f.accepted.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { l.Close(); wg.Wait() })
	repo := p.wf.RepoDir("backend")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	f.plan = attackPlan{Root: root, DB: p.wf.DBPath(), Memory: p.wf.MemoryPath(), Workflow: filepath.Join(p.wf.Dir, "workflow.toml"),
		Config: config.Path(root), Events: lay.Events(), Socket: sock, LeadPID: os.Getpid(), Report: filepath.Join(repo, "report.json")}
	f.planFile = filepath.Join(root, "plan.json")
	f.writePlan(t)
	f.snapshot = f.files(t)
	return f
}

func (f *guardFixture) writePlan(t *testing.T) {
	data, _ := json.Marshal(f.plan)
	if err := os.WriteFile(f.planFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// files are the contents of what no Worker may change (the database
// aside: the Lead writes it; its contents are checked through the outbox).
func (f *guardFixture) files(t *testing.T) map[string]string {
	out := map[string]string{}
	for _, p := range []string{f.plan.Workflow, f.plan.Config, f.plan.Events} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = string(data)
	}
	ents, _ := os.ReadDir(f.plan.Memory)
	for _, e := range ents {
		out["memory/"+e.Name()] = "present"
	}
	dbEnts, _ := os.ReadDir(filepath.Dir(f.plan.DB))
	for _, e := range dbEnts {
		// The Lead's own: its status folder and its role wake folder.
		if !strings.HasPrefix(e.Name(), filepath.Base(f.plan.DB)) && e.Name() != "leads" && e.Name() != filepath.Base(outbox.WakeDir(f.plan.DB)) {
			out["db folder/"+e.Name()] = "present"
		}
	}
	return out
}

func (f *guardFixture) report(t *testing.T) map[string]string {
	data, err := os.ReadFile(f.plan.Report)
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]string
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// checkHeld fails the test if any attempt was allowed or left a trace:
// a comment by anyone but the person who filed the issue and the Lead,
// a decision:accepted stamp, a file in memory/, a changed file, a
// connection to the controller's socket.
func (f *guardFixture) checkHeld(t *testing.T, id int64) {
	t.Helper()
	for name, res := range f.report(t) {
		if !strings.HasPrefix(res, "refused") {
			t.Errorf("%s: %s", name, res)
		} else {
			t.Logf("%s: %s", name, res)
		}
	}
	for _, c := range f.p.comments(id) {
		if c.Author != "ann" && c.Author != roster.Actor("backend") {
			t.Errorf("comment by %q: %q", c.Author, c.Body)
		}
	}
	if f.p.issue(id).HasLabel(roster.LabelAccepted) {
		t.Error("the Worker stamped decision:accepted")
	}
	if got := f.files(t); !equalMaps(got, f.snapshot) {
		t.Errorf("files changed:\n got %v\nwant %v", got, f.snapshot)
	}
	if n := f.accepted.Load(); n != 0 {
		t.Errorf("the controller's socket accepted %d connections from the Worker", n)
	}
}

// attackLead is the attacking Lead, run as a process of its own so it
// can run as another user or in a mount namespace of its own.
type attackLead struct {
	cmd    *exec.Cmd
	exited chan error // cmd.Wait's result, put back by whoever reads it
	stderr strings.Builder
}

// startAttackLead starts cmd, keeping its stderr for failure messages,
// and stops it (and waits for it) when the test ends.
func startAttackLead(t *testing.T, cmd *exec.Cmd) *attackLead {
	t.Helper()
	l := &attackLead{cmd: cmd, exited: make(chan error, 1)}
	cmd.Stderr = &l.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { l.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-l.exited
	})
	return l
}

// awaitAttack waits for the attack issue id to close; a Lead that ends
// first fails the test, after onExit (if set) has seen why (to skip).
func (f *guardFixture) awaitAttack(t *testing.T, l *attackLead, id int64, onExit func(error)) {
	t.Helper()
	f.p.waitFor("the attack's evidence", 60*time.Second, func() bool {
		select {
		case err := <-l.exited:
			l.exited <- err
			if onExit != nil {
				onExit(err)
			}
			t.Fatalf("the Lead ended: %v: %s", err, l.stderr.String())
		default:
		}
		return f.p.issue(id).Closed
	})
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// skipWithoutGuard skips where Workers cannot be guarded (no user
// namespaces); the Lead itself then refuses to run them.
func skipWithoutGuard(t *testing.T) {
	if err := CheckGuard([]string{os.Args[0], "guard", "--"}); err != nil {
		t.Skipf("no guard here: %v", err)
	}
}

// A Worker of a root Lead tries every way out (see runAttacker) and
// changes nothing.
func TestGuardHoldsAgainstARootWorker(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	skipWithoutGuard(t)
	f := newGuardFixture(t)
	guard := append([]string{os.Args[0], "guard"}, GuardOf(f.p.wf, f.plan.Root).Flags()...)
	l := f.p.lead("backend", 1, func(o *Options) {
		o.Guard = guard
		o.WorkerArgv = []string{os.Args[0], "attack", f.planFile}
	})
	id := f.p.file("attack", "", "to:backend")
	runLead(t, l)
	f.p.waitFor("the attack's evidence", 60*time.Second, func() bool { return f.p.issue(id).Closed })
	f.checkHeld(t, id)
}

// The same attack by a Worker of a Lead running as a non-root uid.
func TestGuardHoldsAgainstANonRootWorker(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the Lead as uid 65534")
	}
	f := newGuardFixture(t)
	// The test folder's parent and the build cache are private to root:
	// open the one, copy the test binary out of the other.
	if err := os.Chmod(filepath.Dir(f.p.dir), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(f.p.dir, "lead.test")
	if err := copyFile(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	if err := chownTree(f.p.dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "attacklead", f.p.dir, "backend", f.plan.Root, f.planFile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	lead := startAttackLead(t, cmd)
	// The Worker is told the Lead's pid once the Lead runs; it then gets
	// its issue.
	f.plan.LeadPID = lead.cmd.Process.Pid
	f.writePlan(t)
	if err := os.Chown(f.planFile, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	id := f.p.file("attack", "", "to:backend")
	f.awaitAttack(t, lead, id, func(err error) {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == exitNoGuard {
			t.Skipf("no guard for uid 65534 here: %s", lead.stderr.String())
		}
	})
	f.checkHeld(t, id)
}

// With the project also mounted at a second path, the attack through
// that path changes nothing either.
func TestGuardHoldsAgainstAnAlias(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to bind the project at a second path")
	}
	skipWithoutGuard(t)
	f := newGuardFixture(t)
	f.plan.Alias = filepath.Join(t.TempDir(), "alias")
	if err := os.Mkdir(f.plan.Alias, 0o755); err != nil {
		t.Fatal(err)
	}
	f.writePlan(t)
	// The Lead runs in a mount namespace of its own (Go makes its mounts
	// private), where it binds the project at the alias first.
	cmd := exec.Command(os.Args[0], "attacklead", f.p.dir, "backend", f.plan.Root, f.planFile, f.plan.Alias)
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	lead := startAttackLead(t, cmd)
	f.plan.LeadPID = lead.cmd.Process.Pid
	f.writePlan(t)
	id := f.p.file("attack", "", "to:backend")
	f.awaitAttack(t, lead, id, nil)
	if _, ok := f.report(t)["alias memory write"]; !ok {
		t.Fatal("the alias was not tried")
	}
	f.checkHeld(t, id)
}

// Without the guard, the same attack gets through: the test above
// refutes real attacks.
func TestAttackWorksUnguarded(t *testing.T) {
	f := newGuardFixture(t)
	f.plan.NoPtrace = true
	f.writePlan(t)
	id := f.p.file("attack", "")
	cmd := exec.Command(os.Args[0], "attack", f.planFile)
	cmd.Env = append(os.Environ(), outbox.WorkerEnv+"=backend", "DAOKIT_ISSUE="+strconv.FormatInt(id, 10))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	r := f.report(t)
	for _, name := range []string{"outbox as person", "sqlite direct", "memory write", "ledger write", "socket " + f.plan.Socket,
		"proc root of the lead"} {
		if r[name] != "ALLOWED" {
			t.Errorf("unguarded %s: %s", name, r[name])
		}
	}
	if f.accepted.Load() == 0 {
		t.Error("the socket saw no connection")
	}
	forged := false
	for _, c := range f.p.comments(id) {
		forged = forged || c.Author == "person"
	}
	if !forged || !f.p.issue(id).HasLabel(roster.LabelAccepted) {
		t.Error("unguarded, the Worker could not forge a person's comment and stamp")
	}
}

// exitNoGuard is the exit code of "attacklead" where the guard cannot be
// set up.
const exitNoGuard = 77

// runAttackLead is "attacklead DIR ROLE ROOT PLAN [ALIAS]": a Lead
// process whose Workers are the attacker, guarded; with ALIAS, it first
// binds ROOT there (in a mount namespace of its own).
func runAttackLead(dir, role, root, plan, alias string) int {
	if alias != "" {
		if err := syscall.Mount(root, alias, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			return 2
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	wf, err := team.Load(dir)
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 2
	}
	ob, err := outbox.OpenSQLite(wf.DBPath(), outbox.Options{WakeInterval: 20 * time.Millisecond})
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 2
	}
	defer ob.Close()
	guard := append([]string{os.Args[0], "guard"}, GuardOf(wf, root).Flags()...)
	if err := CheckGuard(guard); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return exitNoGuard
	}
	l, err := New(ctx, Options{Role: role, Workflow: wf, HardCap: 1, Backend: ob, Guard: guard,
		WorkerArgv: []string{os.Args[0], "attack", plan}, StatusDir: roster.StatusDir(wf)})
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 2
	}
	if err := l.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	return 0
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o755)
}

func chownTree(dir string, uid, gid int) error {
	return filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}
