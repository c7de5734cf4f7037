package lead

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// runInit starts argv in the further namespaces (nestedAttr) and stays
// as the PID namespace's init until it exits: it passes the signals a
// Lead or a terminal sends on to it, reaps every orphan the namespace
// gives it, and returns argv's exit code (128+N for a signal N).
func runInit(argv, env []string) (int, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return exitGuardSetup, fmt.Errorf("guard: %w", err)
	}
	attr, err := nestedAttr()
	if err != nil {
		return exitGuardSetup, err
	}
	sigs := make(chan os.Signal, 32)
	signal.Notify(sigs, syscall.SIGCHLD, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT,
		syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH)
	defer signal.Stop(sigs)
	p, err := os.StartProcess(path, argv, &os.ProcAttr{Env: env, Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}, Sys: attr})
	if err != nil {
		return exitGuardSetup, fmt.Errorf("guard: start %s: %w", argv[0], err)
	}
	for s := range sigs {
		if s != syscall.SIGCHLD {
			_ = syscall.Kill(p.Pid, s.(syscall.Signal))
		}
		// Reap after every signal: a SIGCHLD dropped while the channel
		// was full must not leave the guard waiting forever.
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if err == syscall.EINTR {
				continue
			}
			if pid <= 0 || err != nil {
				break
			}
			if pid == p.Pid {
				if ws.Signaled() {
					return 128 + int(ws.Signal()), nil
				}
				return ws.ExitStatus(), nil
			}
		}
	}
	return exitGuardSetup, nil // not reached: sigs is never closed
}

// nestedAttr puts a child in a further user and mount namespace, where
// it keeps the guard's identity (the same ids, mapped onto themselves)
// but holds its capabilities only over namespaces that own no mount it
// inherited: those mounts are locked.
func nestedAttr() (*syscall.SysProcAttr, error) {
	uids, err := identityMap("/proc/self/uid_map")
	if err != nil {
		return nil, err
	}
	gids, err := identityMap("/proc/self/gid_map")
	if err != nil {
		return nil, err
	}
	// setgroups stays as the Lead left it: allowed for a root Lead's
	// Workers, denied otherwise (a child namespace cannot allow it again).
	sg, _ := os.ReadFile("/proc/self/setgroups")
	return &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: uids, GidMappings: gids, GidMappingsEnableSetgroups: strings.TrimSpace(string(sg)) == "allow",
		Pdeathsig: syscall.SIGKILL}, nil
}

// identityMap maps each range of ids the calling namespace has onto
// itself.
func identityMap(file string) ([]syscall.SysProcIDMap, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("guard: %w", err)
	}
	defer f.Close()
	var out []syscall.SysProcIDMap
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			continue
		}
		inside, err1 := strconv.Atoi(fields[0])
		size, err2 := strconv.Atoi(fields[2])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("guard: %s: %q", file, sc.Text())
		}
		out = append(out, syscall.SysProcIDMap{ContainerID: inside, HostID: inside, Size: size})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("guard: %s: no ids", file)
	}
	return out, sc.Err()
}
