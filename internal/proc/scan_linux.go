package proc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// markerOf returns the value of EnvMarker in pid's environment, or ""
// (no such variable, a zombie, a process we may not read).
func markerOf(pid int) string {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return ""
	}
	key := []byte(EnvMarker + "=")
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, key); ok {
			return string(v)
		}
	}
	return ""
}

// sweepKillWait bounds how long Sweep waits for each killed process to
// be gone.
const sweepKillWait = 2 * time.Second

// Sweep kills every process of s that another process started (an
// earlier controller of the same root, killed before it could stop its
// children): the scope's cgroups, then every process whose environment
// carries the scope's marker, wherever it was re-parented. It returns
// how many cgroups and processes it killed. The trees this process
// started are spared.
func (s *Scope) Sweep() int {
	n := sweepCgroups(s)
	prefix := s.id + "/"
	for range maxRounds {
		var victims []int
		forEachProc(func(pid int) {
			rest, ok := strings.CutPrefix(markerOf(pid), prefix)
			if i := strings.LastIndexByte(rest, '/'); ok && i >= 0 && !ownToken(rest[i+1:]) {
				victims = append(victims, pid)
			}
		})
		if len(victims) == 0 {
			break
		}
		for _, pid := range victims {
			killAndWait(pid)
		}
		n += len(victims)
	}
	return n
}

// forEachProc calls f with the pid of every process but this one.
func forEachProc(f func(pid int)) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid != self {
			f(pid)
		}
	}
}

// killAndWait kills pid through a pidfd (a pid reused meanwhile is never
// hit) and waits until it has exited; a child of ours is reaped.
func killAndWait(pid int) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	_, _ = unix.Poll(fds, int(sweepKillWait.Milliseconds()))
	if ppid(pid) == os.Getpid() {
		reap(pid)
	}
}

// ppid returns pid's parent, or 0.
func ppid(pid int) int {
	f := statFields(pid)
	if len(f) < 2 {
		return 0
	}
	p, _ := strconv.Atoi(f[1])
	return p
}

// statOf returns pid's state (R, S, Z, …) and process group, or 0, 0.
func statOf(pid int) (byte, int) {
	f := statFields(pid)
	if len(f) < 3 || f[0] == "" {
		return 0, 0
	}
	g, _ := strconv.Atoi(f[2])
	return f[0][0], g
}

// statFields returns the fields of /proc/pid/stat after the command
// name (which may hold spaces and parentheses): state, ppid, pgrp, …
func statFields(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// Close removes the scope's cgroup folder when it is empty: the
// controller is stopping and its trees are gone. (The folder stays while
// the controller runs: making it again for every child would cost two
// more cgroup operations each.)
func (s *Scope) Close() {
	s.mu.Lock()
	idle := s.idle
	s.idle = nil
	s.mu.Unlock()
	for _, cg := range idle {
		cg.remove()
	}
	if base := cgroupBase(); base != "" {
		_ = os.Remove(scopeDir(base, s))
	}
}
