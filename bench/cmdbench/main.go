// Command cmdbench times a command the way a person runs it: N runs of
// the real process, reporting the median and p99 wall time and the peak
// resident memory (from rusage), as one line:
//
//	go run ./bench/cmdbench -n 50 -label "replay 1M" -- bin/daokit replay --root DIR --limit 20
//
// It exists so that `make bench` measures whole commands with no tool
// beyond Go.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", 30, "number of runs")
	label := flag.String("label", "", "name printed before the figures")
	warmup := flag.Int("warmup", 3, "untimed runs first (page cache, binary loading)")
	flag.Parse()
	argv := flag.Args()
	if len(argv) == 0 || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: cmdbench [-n N] [-label L] -- command [args]")
		os.Exit(2)
	}
	for i := 0; i < *warmup; i++ {
		if _, _, err := once(argv); err != nil {
			fmt.Fprintln(os.Stderr, "cmdbench:", err)
			os.Exit(1)
		}
	}
	var walls []time.Duration
	var peakKB int64
	for i := 0; i < *n; i++ {
		wall, rssKB, err := once(argv)
		if err != nil {
			fmt.Fprintln(os.Stderr, "cmdbench:", err)
			os.Exit(1)
		}
		walls = append(walls, wall)
		peakKB = max(peakKB, rssKB)
	}
	slices.Sort(walls)
	p := func(q float64) time.Duration { return walls[min(int(q*float64(len(walls))), len(walls)-1)] }
	fmt.Printf("%-28s runs=%d median=%v p99=%v max=%v peak_rss=%.1fMB\n", *label, *n,
		p(0.5).Round(10*time.Microsecond), p(0.99).Round(10*time.Microsecond), walls[len(walls)-1].Round(10*time.Microsecond), float64(peakKB)/1024)
}

// once runs argv and returns its wall time and peak RSS in KiB.
func once(argv []string) (time.Duration, int64, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
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
