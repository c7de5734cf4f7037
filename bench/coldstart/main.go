// Command coldstart times daokit's cold start the way a person meets it:
// each run gets a fresh ledger root (daokit init, not timed), then the
// timed command starts the root's controller itself. After each run the
// controller is stopped and awaited, so that runs do not overlap.
//
//	go run ./bench/coldstart -daokit bin/daokit -n 20 -mode send
//	go run ./bench/coldstart -daokit bin/daokit -n 10 -mode run
//
// mode send times `daokit send --root R hello` (acknowledged, not waited
// for); mode run times `daokit run --root R --task-id T --goal G` to DONE
// with the simulated worker set to finish at once (daokit.toml below).
//
// With -python SRC (a checkout of the Python DAOKit), mode run also times
// the Python tool's own `run` on a fresh root of its own (its `init`, not
// timed), alternating with daokit's runs so that both meet the same
// machine, and prints the ratio of the medians:
//
//	go run ./bench/coldstart -daokit bin/daokit -n 10 -mode run -python ~/DAOKit
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// fastSim makes the simulated worker finish a step immediately, so that
// `run` measures daokit, not the simulation's pacing.
const fastSim = `[[lanes]]
name = "worker"
kind = "sim"
command = ["{daokit}", "worker", "sim", "--duration", "1ms", "--lines", "1", "--", "{instruction}"]
`

func main() {
	bin := flag.String("daokit", "bin/daokit", "daokit binary")
	n := flag.Int("n", 20, "number of runs")
	mode := flag.String("mode", "send", "send or run")
	pySrc := flag.String("python", "", "a Python DAOKit checkout: time its run side by side (mode run)")
	flag.Parse()
	if err := bench(*bin, *mode, *n, *pySrc); err != nil {
		fmt.Fprintln(os.Stderr, "coldstart:", err)
		os.Exit(1)
	}
}

func bench(bin, mode string, n int, pySrc string) error {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	if pySrc != "" {
		if pySrc, err = filepath.Abs(pySrc); err != nil {
			return err
		}
	}
	var walls, pyWalls []time.Duration
	for i := range n {
		wall, err := once(abs, mode, i)
		if err != nil {
			return err
		}
		walls = append(walls, wall)
		if mode == "run" && pySrc != "" {
			wall, err := oncePython(pySrc, i)
			if err != nil {
				return err
			}
			pyWalls = append(pyWalls, wall)
		}
	}
	med := report(mode+" on a fresh root", walls)
	if len(pyWalls) > 0 {
		pyMed := report("python run on a fresh root", pyWalls)
		fmt.Printf("%-28s daokit/python=%.2f (medians)\n", "run side by side", float64(med)/float64(pyMed))
	}
	return nil
}

// report prints the spread of walls and returns their median.
func report(label string, walls []time.Duration) time.Duration {
	slices.Sort(walls)
	p := func(q float64) time.Duration { return walls[min(int(q*float64(len(walls))), len(walls)-1)] }
	fmt.Printf("%-28s runs=%d median=%v p90=%v max=%v\n", label, len(walls),
		p(0.5).Round(10*time.Microsecond), p(0.9).Round(10*time.Microsecond), walls[len(walls)-1].Round(10*time.Microsecond))
	return p(0.5)
}

// oncePython times the Python tool's `run` on a fresh root it initialised
// itself (not timed). Its run executes in process: there is no controller
// to stop afterwards.
func oncePython(src string, i int) (time.Duration, error) {
	root, err := os.MkdirTemp("", "daokit-coldstart-py-*")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(root)
	py := func(args ...string) *exec.Cmd {
		cmd := exec.Command("python3", append([]string{"-m", "cli"}, args...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join(src, "src"))
		return cmd
	}
	if out, err := py("init", "--root", root).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("python init: %v: %s", err, out)
	}
	cmd := py("run", "--root", root, "--task-id", "BENCH-"+strconv.Itoa(i), "--run-id", "RUN-1", "--goal", "benchmark goal")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("python run: %v: %s", err, out)
	}
	return wall, nil
}

// once prepares a fresh root, times one command on it and stops the
// controller it started.
func once(bin, mode string, i int) (time.Duration, error) {
	root, err := os.MkdirTemp("", "daokit-coldstart-*")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(root)
	if out, err := exec.Command(bin, "init", "--root", root).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("init: %v: %s", err, out)
	}
	args := []string{"send", "--root", root, "hello"}
	if mode == "run" {
		if err := os.WriteFile(filepath.Join(root, "daokit.toml"), []byte(fastSim), 0o644); err != nil {
			return 0, err
		}
		args = []string{"run", "--root", root, "--task-id", "BENCH-" + strconv.Itoa(i), "--goal", "benchmark goal"}
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "DAOKIT_LANG=en")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	stopErr := stopController(root)
	if err != nil {
		return 0, fmt.Errorf("%v: %v: %s", args, err, out)
	}
	return wall, stopErr
}

// stopController ends the controller that holds root (SIGTERM, then
// SIGKILL after 5 s) and waits until it is gone.
func stopController(root string) error {
	data, err := os.ReadFile(filepath.Join(root, "state", "daokit.lock"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return nil
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			deadline = time.Now().Add(5 * time.Second)
		}
		time.Sleep(2 * time.Millisecond)
	}
	return nil
}
