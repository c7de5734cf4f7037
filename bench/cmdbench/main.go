// Command cmdbench times a command the way a person runs it: N runs of
// the real process, reporting the median and p99 wall time and the peak
// resident memory (from rusage), as one line:
//
//	go run ./bench/cmdbench -n 50 -label "replay 1M" -- bin/daokit replay --root DIR --limit 20
//
// With -vs it measures a floor side by side: the baseline command (for
// example a Go hello-world) runs alternately with the command, one run
// each in turn, so that both see the same machine, and the ratio of the
// medians is printed after both lines. Timing one after the other lets
// the machine's drift between the two series pass for a difference.
//
// It exists so that `make bench` measures whole commands with no tool
// beyond Go.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", 30, "number of runs")
	label := flag.String("label", "", "name printed before the figures")
	warmup := flag.Int("warmup", 3, "untimed runs first (page cache, binary loading)")
	vs := flag.String("vs", "", "baseline command (space-separated) timed alternately with the command; the ratio of the medians is printed")
	vsLabel := flag.String("vs-label", "", "name of the baseline (default: its command)")
	flag.Parse()
	argv := flag.Args()
	if len(argv) == 0 || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: cmdbench [-n N] [-label L] [-vs 'baseline args'] -- command [args]")
		os.Exit(2)
	}
	cmds := []*series{{label: *label, argv: argv}}
	if *vs != "" {
		base := &series{label: *vsLabel, argv: strings.Fields(*vs)}
		if base.label == "" {
			base.label = *vs
		}
		cmds = []*series{base, cmds[0]}
	}
	for i := 0; i < *warmup; i++ {
		for _, s := range cmds {
			if _, _, err := once(s.argv); err != nil {
				fail(err)
			}
		}
	}
	for i := 0; i < *n; i++ {
		for _, s := range cmds {
			if err := s.run(); err != nil {
				fail(err)
			}
		}
	}
	for _, s := range cmds {
		s.print()
	}
	if len(cmds) == 2 {
		fmt.Printf("%-28s ratio of medians=%.2fx (%s / %s, alternating runs)\n", "", float64(cmds[1].median())/float64(cmds[0].median()), cmds[1].label, cmds[0].label)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "cmdbench:", err)
	os.Exit(1)
}

// series is the timed runs of one command.
type series struct {
	label  string
	argv   []string
	walls  []time.Duration
	peakKB int64
}

func (s *series) run() error {
	wall, rssKB, err := once(s.argv)
	if err != nil {
		return err
	}
	s.walls = append(s.walls, wall)
	s.peakKB = max(s.peakKB, rssKB)
	return nil
}

// quantile returns the q-quantile of the walls (sorted in place).
func (s *series) quantile(q float64) time.Duration {
	slices.Sort(s.walls)
	return s.walls[min(int(q*float64(len(s.walls))), len(s.walls)-1)]
}

func (s *series) median() time.Duration { return s.quantile(0.5) }

func (s *series) print() {
	r := func(d time.Duration) time.Duration { return d.Round(10 * time.Microsecond) }
	fmt.Printf("%-28s runs=%d median=%v p99=%v max=%v peak_rss=%.1fMB\n", s.label, len(s.walls),
		r(s.median()), r(s.quantile(0.99)), r(s.quantile(1)), float64(s.peakKB)/1024)
}

// devNull takes the commands' output: an *os.File is handed to the child
// as is, where any other writer costs a pipe and a copying goroutine
// inside the measured time.
var devNull = func() *os.File {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		fail(err)
	}
	return f
}()

// once runs argv and returns its wall time and peak RSS in KiB.
func once(argv []string) (time.Duration, int64, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = devNull, devNull
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() > 2 {
			return 0, 0, fmt.Errorf("%v: %w", argv, err)
		}
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
	}
	return wall, rss, nil
}
