package main

import (
	"os/signal"
	"strings"
	"syscall"

	"github.com/daokit/daokit/worker"
)

func init() {
	register(command{name: "worker", summary: "cli.worker.summary", run: runWorker})
}

// runWorker dispatches "daokit worker <kind>". The only built-in kind is
// the simulated coding agent; real agents are configured as commands.
func runWorker(a *app, args []string) error {
	if len(args) == 0 {
		return usageError(a.t("cli.error.usage", "Command", "worker", "Detail", a.t("cli.worker.error.missing_kind")))
	}
	switch kind := args[0]; {
	case kind == "sim":
		return runWorkerSim(a, args[1:])
	case isHelp(kind):
		a.println(a.t("cli.worker.usage"))
		a.println("")
		a.println(a.t("cli.worker.summary"))
		a.println("")
		a.println(a.t("cli.worker.kinds"))
		a.printf("  %-6s %s\n", "sim", a.t("cli.worker.sim.summary"))
		return nil
	default:
		return usageError(a.t("cli.error.usage", "Command", "worker", "Detail", a.t("cli.worker.error.unknown_kind", "Name", kind)))
	}
}

// runWorkerSim is "daokit worker sim [options] [instruction]". Its exit
// code is the simulation's, so that a drill's crash or failure is exactly
// what the controller sees.
func runWorkerSim(a *app, args []string) error {
	f := a.newFlags(command{name: "worker sim", summary: "cli.worker.sim.summary"})
	f.argsID = "cli.worker.args"
	seed := f.Uint64("seed", 1, "cli.worker.flag.seed")
	duration := f.Duration("duration", worker.DefaultSimDuration, "cli.worker.flag.duration")
	lines := f.Int("lines", worker.DefaultSimLines, "cli.worker.flag.lines")
	hang := f.Bool("hang", false, "cli.worker.flag.hang")
	hangAfter := f.Int("hang-after", 0, "cli.worker.flag.hang_after")
	silent := f.Bool("silent", false, "cli.worker.flag.silent")
	crash := f.Bool("crash", false, "cli.worker.flag.crash")
	crashAfter := f.Int("crash-after", 0, "cli.worker.flag.crash_after")
	exitCode := f.Int("exit-code", 0, "cli.worker.flag.exit_code")
	flood := f.Duration("flood", 0, "cli.worker.flag.flood")
	floodLines := f.Int("flood-lines", 0, "cli.worker.flag.flood_lines")
	floodRate := f.Int("flood-rate", 0, "cli.worker.flag.flood_rate")
	ignoreTerm := f.Bool("ignore-term", false, "cli.worker.flag.ignore_term")
	if err := f.parse(args); err != nil {
		return err
	}
	for name, v := range map[string]int64{
		"duration": int64(*duration), "lines": int64(*lines), "hang-after": int64(*hangAfter),
		"crash-after": int64(*crashAfter), "flood": int64(*flood), "flood-lines": int64(*floodLines),
		"flood-rate": int64(*floodRate), "exit-code": int64(*exitCode),
	} {
		if v < 0 {
			return usageError(a.t("cli.error.usage", "Command", f.Name(), "Detail", a.t("cli.worker.error.negative", "Flag", name)))
		}
	}
	if *ignoreTerm {
		// Only SIGKILL ends the drill now: the case the stop grace period
		// and SIGKILL escalation exist for.
		signal.Ignore(syscall.SIGTERM)
	}
	opts := worker.SimOptions{
		Instruction: strings.Join(f.Args(), " "),
		Seed:        *seed,
		Duration:    *duration,
		Lines:       *lines,
		Hang:        *hang || *hangAfter > 0,
		HangAfter:   *hangAfter,
		Silent:      *silent,
		Crash:       *crash || *crashAfter > 0,
		CrashAfter:  *crashAfter,
		ExitCode:    *exitCode,
		FloodFor:    *flood,
		FloodLines:  *floodLines,
		FloodRate:   *floodRate,
		Loc:         a.loc,
	}
	if code := worker.RunSim(a.ctx, opts, a.io.out, a.io.err); code != 0 {
		return &exitError{code: code}
	}
	return nil
}
