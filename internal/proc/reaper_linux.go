package proc

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// wantSubreaper: BecomeSubreaper was called; subreaper: this process is
// one.
var wantSubreaper, subreaper atomic.Bool

// BecomeSubreaper makes this process (the controller) the child
// subreaper of the trees it starts when they cannot be put in cgroups:
// a descendant whose parent died (one that left its group with setsid,
// say) then becomes its child instead of init's, where Kill finds it by
// its marker. With cgroups nothing needs it, and it is not done: every
// orphan would become a zombie of ours.
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

// maxRounds bounds the sweeps: each round kills what the previous
// round's deaths handed over (a grandchild whose parent just died).
const maxRounds = 16

// sweepOrphans kills the subreaper's children that carry marker (but not
// leader, whose owner reaps it): the tree's descendants that left its
// group and lost their parent. Each is killed with its group and reaped,
// which hands their own orphans over for the next round.
func sweepOrphans(marker string, leader int) {
	if !subreaper.Load() {
		return
	}
	self := unix.Getpgrp()
	for range maxRounds {
		var found []int
		for _, pid := range children() {
			if pid != leader && markerOf(pid) == marker {
				found = append(found, pid)
			}
		}
		if len(found) == 0 {
			return
		}
		for _, pid := range found {
			if pg, err := unix.Getpgid(pid); err == nil && pg > 1 && pg != self {
				_ = unix.Kill(-pg, unix.SIGKILL)
			}
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		for _, pid := range found {
			reap(pid)
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
