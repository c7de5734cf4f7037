package proc

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// wantSubreaper: BecomeSubreaper was called; subreaper: this process is
// one.
var wantSubreaper, subreaper atomic.Bool

// BecomeSubreaper makes this process (the controller) the child
// subreaper of the trees it starts when they cannot be put in cgroups:
// a descendant whose parent died (one that left its group with setsid,
// say) then becomes its child instead of init's, and stays in the
// lineage of the controller that kills and reaps it. With cgroups
// nothing needs it, and it is not done: every orphan would become a
// zombie of ours.
func BecomeSubreaper() {
	wantSubreaper.Store(true)
	if cgroupBase() == "" {
		becomeSubreaper()
	}
}

func becomeSubreaper() {
	if subreaper.Load() {
		return
	}
	if unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil {
		subreaper.Store(true)
	}
}

// Tracking names how trees are tracked in this process: "cgroup",
// "subreaper" or "group" (the process group only).
func Tracking() string {
	switch {
	case cgroupBase() != "":
		return "cgroup"
	case subreaper.Load():
		return "subreaper"
	}
	return "group"
}

// WaitExited blocks until pid (a child) has exited, leaving it a zombie:
// its process group id stays pinned until it is reaped.
func WaitExited(pid int) error {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// reap reaps the child pid, waiting for it to exit.
func reap(pid int) {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}

// maxRounds bounds the sweeps: each round kills what was forked while
// the previous one ran.
const maxRounds = 16

// sweepOrphans kills every process that carries marker but leader (whose
// owner kills and reaps it): the tree's members, and its descendants
// that left its group and session, wherever they were re-parented. It
// scans /proc, which only a tree without a cgroup needs; a subreaper
// reaps those that became its children, and the tree's group members
// that died as its zombies.
func sweepOrphans(marker string, leader int) {
	for round := range maxRounds {
		reapGroupZombies(leader)
		var found []int
		forEachProc(func(pid int) {
			if pid != leader && markerOf(pid) == marker {
				found = append(found, pid)
			}
		})
		if len(found) == 0 {
			if !childInExec(leader) {
				return
			}
			// A child of ours in the middle of an execve shows no
			// environment yet: look again once it has one.
			<-time.After(time.Millisecond << min(round, 6))
			continue
		}
		for _, pid := range found {
			killAndWait(pid)
		}
	}
}

// childInExec reports whether a live child of this subreaper (but
// leader) shows an empty environment, as a process does between the
// point of no return of an execve and its new stack.
func childInExec(leader int) bool {
	if !subreaper.Load() {
		return false
	}
	for _, pid := range children() {
		if pid == leader {
			continue
		}
		if state, _ := statOf(pid); state != 0 && state != 'Z' {
			if env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ"); err == nil && len(env) == 0 {
				return true
			}
		}
	}
	return false
}

// reapGroupZombies reaps this process's zombie children of group pgid
// (members of a killed tree handed to the subreaper): their environment
// is gone, so no marker names them.
func reapGroupZombies(pgid int) {
	if !subreaper.Load() {
		return
	}
	for _, pid := range children() {
		if pid != pgid {
			if state, group := statOf(pid); state == 'Z' && group == pgid {
				reap(pid)
			}
		}
	}
}

// children returns this process's children, from every thread's
// children list.
func children() []int {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join("/proc/self/task", t.Name(), "children"))
		if err != nil {
			continue
		}
		for f := range strings.FieldsSeq(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}
