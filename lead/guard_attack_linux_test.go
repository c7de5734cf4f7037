package lead

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/relay"
)

// attackPlan is what the attacking Worker knows of its project: every
// path a real Worker could learn or guess.
type attackPlan struct {
	Root     string `json:"root"`
	DB       string `json:"db"`
	Memory   string `json:"memory"`
	Workflow string `json:"workflow"`
	Config   string `json:"config"`
	Events   string `json:"events"`
	Socket   string `json:"socket"`
	LeadPID  int    `json:"lead_pid"`
	Report   string `json:"report"`
	// Alias is where the whole root is also mounted, when it is.
	Alias string `json:"alias,omitempty"`
	// NoPtrace: the run is unguarded, where pid 1 is the system's init
	// and the Lead the test itself: leave them alone.
	NoPtrace bool `json:"no_ptrace,omitempty"`
}

// runAttacker is a Worker that tries every way its uid offers to write
// the outbox, the memory folder, the team's configuration or the
// controller's state, or to reach the controller, and writes what
// happened to each attempt in plan.Report: "refused: …" or "ALLOWED: …".
// It then prints its evidence like any Worker.
func runAttacker(planFile string) int {
	var plan attackPlan
	data, err := os.ReadFile(planFile)
	if err == nil {
		err = json.Unmarshal(data, &plan)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	report := map[string]string{}
	try := func(name string, err error) {
		if err != nil {
			report[name] = "refused: " + err.Error()
		} else {
			report[name] = "ALLOWED"
		}
	}
	dbDir := filepath.Dir(plan.DB)
	// 1. Take the mounts away, or make them writable again.
	for _, p := range []string{dbDir, plan.Memory, filepath.Dir(plan.Events), filepath.Dir(plan.Socket)} {
		try("umount "+p, unix.Unmount(p, unix.MNT_DETACH))
		try("remount rw "+p, unix.Mount("", p, "", unix.MS_REMOUNT|unix.MS_BIND, ""))
	}
	// 2. The same from a user and mount namespace of its own.
	try("nested umount and write", nestedUmount(plan.Memory))
	// 3. The outbox with DAOKIT_WORKER_OF unset, as "person".
	os.Unsetenv(outbox.WorkerEnv)
	try("outbox as person", forge(plan.DB))
	// 4. SQLite directly, and the files themselves.
	try("sqlite direct", sqliteDirect(plan.DB))
	try("db file write", appendTo(plan.DB))
	try("plant a WAL", os.WriteFile(plan.DB+"-journal", []byte("x"), 0o644))
	try("memory write", os.WriteFile(filepath.Join(plan.Memory, "9999-forged.md"), []byte("# Forged\n"), 0o644))
	try("memory rename", os.Rename(plan.Memory, plan.Memory+".moved"))
	try("workflow.toml write", appendTo(plan.Workflow))
	try("daokit.toml write", appendTo(plan.Config))
	try("ledger write", appendTo(plan.Events))
	// 5. The same files through another process's root.
	try("proc root of the lead", procRoot(plan.LeadPID, plan))
	try("proc root of any process", anyProcRoot(plan))
	if !plan.NoPtrace {
		try("ptrace the guard", ptraceSeize(1))
		try("ptrace the lead", ptraceSeize(plan.LeadPID))
	}
	// 6. The controller's socket, by its path, its record, and /proc.
	try("socket "+plan.Socket, dial(plan.Socket))
	if s, err := relay.ResolveSocket(plan.Root); err == nil && s != plan.Socket {
		try("socket "+s, dial(s))
	}
	try("socket through the lead's root", dial(fmt.Sprintf("/proc/%d/root%s", plan.LeadPID, plan.Socket)))
	// 7. The same files through another mount of the project.
	if plan.Alias != "" {
		at := func(p string) string { return plan.Alias + strings.TrimPrefix(p, plan.Root) }
		try("alias memory write", os.WriteFile(filepath.Join(at(plan.Memory), "9996-alias.md"), []byte("x"), 0o644))
		try("alias db file write", appendTo(at(plan.DB)))
		try("alias sqlite direct", sqliteDirect(at(plan.DB)))
		try("alias outbox as person", forge(at(plan.DB)))
		try("alias ledger write", appendTo(at(plan.Events)))
		try("alias socket", dial(at(plan.Socket)))
	}
	// 8. A descriptor left open by whoever started us.
	try("inherited descriptors", leakedFD(plan))
	out, _ := json.MarshalIndent(report, "", "  ")
	if err := os.WriteFile(plan.Report, out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Println("IssueRef: #" + os.Getenv("DAOKIT_ISSUE"))
	fmt.Println("Changes: none")
	fmt.Println("Tests: attack done")
	return 0
}

// forge comments as "person" and stamps decision:accepted on issue 1.
func forge(db string) error {
	ob, err := outbox.OpenSQLite(db, outbox.Options{})
	if err != nil {
		return err
	}
	defer ob.Close()
	_, err = ob.Apply(context.Background(), outbox.Change{Actor: "person", Ops: []outbox.Op{
		{Kind: outbox.OpComment, Issue: 1, Body: "forged by a worker"},
		{Kind: outbox.OpLabel, Issue: 1, Labels: []string{roster.LabelAccepted}}}})
	return err
}

// sqliteDirect writes the tables with the SQLite driver, no outbox code.
func sqliteDirect(db string) error {
	d, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(2000)")
	if err != nil {
		return err
	}
	defer d.Close()
	_, err = d.Exec(`INSERT INTO comments(issue, author, body, created) VALUES(1, 'person', 'forged directly', 0);
		INSERT OR REPLACE INTO labels(issue, label) VALUES(1, 'decision:accepted')`)
	return err
}

func appendTo(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString("\n# forged\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// procRoot writes the memory folder and opens the database for writing
// through /proc/PID/root.
func procRoot(pid int, plan attackPlan) error {
	root := fmt.Sprintf("/proc/%d/root", pid)
	if err := os.WriteFile(root+filepath.Join(plan.Memory, "9998-through-proc.md"), []byte("x"), 0o644); err == nil {
		return nil
	} else if f, err2 := os.OpenFile(root+plan.DB, os.O_WRONLY, 0); err2 == nil {
		f.Close()
		return nil
	} else {
		return errors.Join(err, err2)
	}
}

// anyProcRoot tries procRoot through every process this /proc shows.
func anyProcRoot(plan attackPlan) error {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return err
	}
	var pids []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		pids = append(pids, e.Name())
		if procRoot(pid, plan) == nil {
			return nil
		}
	}
	return fmt.Errorf("no process's root gives write access (visible: %s)", strings.Join(pids, " "))
}

// ptraceSeize attaches to pid as a tracer would, without stopping it
// (PTRACE_SEIZE); the attachment ends when this process exits.
func ptraceSeize(pid int) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return unix.PtraceSeize(pid)
}

func dial(path string) error {
	c, err := net.DialTimeout("unix", path, 2*time.Second)
	if err != nil {
		return err
	}
	return c.Close()
}

// leakedFD looks for a descriptor on the database, memory or state.
func leakedFD(plan attackPlan) error {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return err
	}
	var seen []string
	for _, e := range ents {
		if e.Name() == "1" || e.Name() == "2" {
			// Its own stdout and stderr: the attempt's log files, which
			// it writes anyway; a file descriptor reaches nothing beside
			// its file.
			continue
		}
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil {
			continue
		}
		seen = append(seen, target)
		for _, p := range []string{filepath.Dir(plan.DB), plan.Memory, filepath.Dir(plan.Events)} {
			if target == p || strings.HasPrefix(target, p+"/") {
				return nil
			}
		}
	}
	sort.Strings(seen)
	return fmt.Errorf("none (open: %s)", strings.Join(seen, ", "))
}

// nestedUmount runs the test binary as "attack-nested DIR" in a user and
// mount namespace of its own, where it is root: nil if it could unmount
// DIR and write into it there.
func nestedUmount(dir string) error {
	uids, err := identityMap("/proc/self/uid_map")
	if err != nil {
		return err
	}
	gids, err := identityMap("/proc/self/gid_map")
	if err != nil {
		return err
	}
	p, err := os.StartProcess("/proc/self/exe", []string{os.Args[0], "attack-nested", dir}, &os.ProcAttr{
		Files: []*os.File{nil, os.Stderr, os.Stderr},
		Sys:   &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS, UidMappings: uids, GidMappings: gids}})
	if err != nil {
		return err
	}
	st, err := p.Wait()
	if err != nil {
		return err
	}
	if st.ExitCode() != 0 {
		return fmt.Errorf("nested attempt: %s", st)
	}
	return nil
}

// runNested is "attack-nested DIR": exit 0 if DIR could be unmounted (or
// remounted writable) and written.
func runNested(dir string) int {
	errU := unix.Unmount(dir, unix.MNT_DETACH)
	errR := unix.Mount("", dir, "", unix.MS_REMOUNT|unix.MS_BIND, "")
	errW := os.WriteFile(filepath.Join(dir, "9997-nested.md"), []byte("x"), 0o644)
	if errW != nil {
		fmt.Fprintf(os.Stderr, "nested: umount %v; remount %v; write %v\n", errU, errR, errW)
		return 1
	}
	return 0
}
