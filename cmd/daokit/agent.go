package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/daokit/daokit/agent"
	"github.com/daokit/daokit/hub/naming"
	hubsteps "github.com/daokit/daokit/hub/steps"
	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"
)

// agentFlags are `daokit agent`'s options.
type agentFlags struct {
	hub, name, rootID, creds, work string
	lanes                          []string
	slots                          int
	ackWait                        time.Duration
	verbose                        bool
}

// newAgentCmd is `daokit agent`: an agent host that pulls a root's steps
// from the hub for the lanes it offers (docs/deployment.en.md). It needs
// no server: daokit never links it (daokit-hub does).
func newAgentCmd(a *app) *cobra.Command {
	var o agentFlags
	c := a.command("agent", "agenthost.cli.summary", func(c *cobra.Command, _ []string) error { return a.runAgent(c, o) })
	f := c.Flags()
	f.StringVar(&o.hub, "hub", "", "agenthost.cli.flag.hub")
	f.StringVar(&o.name, "name", "", "agenthost.cli.flag.name")
	f.StringVar(&o.rootID, "root-id", "", "agenthost.cli.flag.root_id")
	f.StringSliceVar(&o.lanes, "lanes", nil, "agenthost.cli.flag.lanes")
	f.StringVar(&o.creds, "credentials", "", "agenthost.cli.flag.creds")
	f.StringVar(&o.work, "work", "", "agenthost.cli.flag.work")
	a.defaultText(f, "work", "agenthost.cli.flag.work_default")
	f.IntVar(&o.slots, "slots", 1, "agenthost.cli.flag.slots")
	f.DurationVar(&o.ackWait, "ack-wait", agent.DefaultAckWait, "agenthost.cli.flag.ack_wait")
	f.BoolVar(&o.verbose, "verbose", false, "agenthost.cli.flag.verbose")
	return c
}

// runAgent checks the flags, connects and serves until SIGINT or SIGTERM;
// the steps it runs then go to other agents.
func (a *app) runAgent(c *cobra.Command, o agentFlags) error {
	for flag, v := range map[string]string{"--hub": o.hub, "--name": o.name, "--root-id": o.rootID} {
		if v == "" {
			return a.usage(c, a.t("agenthost.cli.error.required", "Flag", flag))
		}
	}
	if len(o.lanes) == 0 {
		return a.usage(c, a.t("agenthost.cli.error.required", "Flag", "--lanes"))
	}
	root, err := naming.ForRoot(o.rootID)
	if err != nil {
		return a.usage(c, a.t("agenthost.cli.error.invalid", "Flag", "--root-id", "Err", err.Error()))
	}
	for _, l := range append([]string{o.name}, o.lanes...) {
		if err := naming.ValidToken(l); err != nil {
			return a.usage(c, a.t("agenthost.cli.error.invalid", "Flag", "--name/--lanes", "Err", err.Error()))
		}
	}
	if o.slots < 1 || o.ackWait < 100*time.Millisecond {
		return a.usage(c, a.t("agenthost.cli.error.limits"))
	}
	work := o.work
	if work == "" {
		work = filepath.Join(a.dataHome(), "daokit", "agent", o.name)
	}
	level := slog.LevelWarn
	if o.verbose {
		level = slog.LevelDebug
	}
	conn, err := hubsteps.DialWait(a.ctx, hubsteps.DialOptions{URL: o.hub, Creds: o.creds, Name: "daokit-agent-" + o.name, Ping: o.ackWait / 4}, root,
		func(err error) {
			fmt.Fprintln(a.io.err, a.t("remote.cli.waiting_hub", "URL", o.hub, "Err", err.Error()))
		})
	if err != nil {
		if a.ctx.Err() != nil {
			return a.ctx.Err() // Ctrl-C while waiting for the hub: E_INTERRUPTED
		}
		return failf("E_AGENT_FAILED", a.t("agenthost.cli.error.connect", "URL", o.hub, "Err", err.Error()))
	}
	defer conn.Close()
	a.println(a.t("agenthost.cli.serving", "Name", o.name, "Lanes", strings.Join(o.lanes, ","), "URL", o.hub, "Dir", work))
	err = agent.Run(a.ctx, conn, agent.Options{
		Name: o.name, Lanes: o.lanes, Slots: o.slots, WorkDir: work, AckWait: o.ackWait, Self: a.self,
		Log: slog.New(slog.NewTextHandler(a.io.err, &slog.HandlerOptions{Level: level})),
	})
	if err != nil && a.ctx.Err() == nil {
		// A key of another root or role fails as a timeout of the
		// refused request; the hub's own words say why.
		if last := conn.NC.LastError(); errors.Is(last, nats.ErrPermissionViolation) {
			return failf("E_AGENT_FAILED", a.t("agenthost.cli.error.refused", "Err", last.Error(), "Root", root.ID()))
		}
		return failf("E_AGENT_FAILED", err.Error())
	}
	a.println(a.t("agenthost.cli.stopped", "Name", o.name))
	return nil
}

// relayHubWait bounds how long a step's relay waits for a hub that is
// down or restarting before it fails the step.
const relayHubWait = time.Minute

// dataHome is $XDG_DATA_HOME, else ~/.local/share.
func (a *app) dataHome() string {
	if x := a.getenv("XDG_DATA_HOME"); x != "" {
		return x
	}
	return filepath.Join(a.getenv("HOME"), ".local", "share")
}

// newWorkerHubCmd is `daokit worker hub`: the controller's relay of a
// step that runs on an agent host. The controller starts it as the
// step's worker with the step (JSON, hub/hubsteps.Step) on stdin; it offers
// the step through the hub and prints the agent's output as its own,
// ending with the step's exit code. SIGTERM asks the agent to stop the
// step.
func newWorkerHubCmd(a *app) *cobra.Command {
	var hubURL, rootID, creds string
	var warningAfter, staleAfter time.Duration
	c := a.command("hub", "agenthost.cli.relay.summary", nil)
	f := c.Flags()
	f.StringVar(&hubURL, "hub", "", "agenthost.cli.flag.hub")
	f.StringVar(&rootID, "root-id", "", "agenthost.cli.flag.root_id")
	f.StringVar(&creds, "credentials", "", "agenthost.cli.flag.creds")
	f.DurationVar(&warningAfter, "warning-after", 0, "agenthost.cli.flag.warning_after")
	f.DurationVar(&staleAfter, "stale-after", 0, "agenthost.cli.flag.stale_after")
	c.RunE = func(c *cobra.Command, _ []string) error {
		root, err := naming.ForRoot(rootID)
		if err != nil || hubURL == "" {
			return a.usage(c, a.t("agenthost.cli.error.required", "Flag", "--hub, --root-id"))
		}
		relayAt := time.Now()
		var s hubsteps.Step
		if err := decodeStep(a, &s); err != nil {
			return failf("E_AGENT_FAILED", a.t("agenthost.cli.error.step", "Err", err.Error()))
		}
		s.RelayAt = relayAt.UnixNano()
		s.SpawnAt, _ = strconv.ParseInt(a.getenv(hubsteps.EnvSpawnAt), 10, 64)
		// A hub that is down or restarting is waited for, up to a
		// minute: a step is not failed (and run again) for an outage.
		dctx, cancel := context.WithTimeout(a.ctx, relayHubWait)
		conn, err := hubsteps.DialWait(dctx, hubsteps.DialOptions{URL: hubURL, Creds: creds, Name: "daokit-relay-" + s.Key, Ping: 5 * time.Second}, root, nil)
		cancel()
		if err != nil {
			return failf("E_AGENT_FAILED", a.t("agenthost.cli.error.connect", "URL", hubURL, "Err", err.Error()))
		}
		defer conn.Close()
		// SIGTERM ends a.ctx: a stop request, not the relay's end, which
		// is the step's (or the controller's SIGKILL after the grace).
		code, err := hubsteps.Relay(context.WithoutCancel(a.ctx), conn, s, hubsteps.RelayIO{
			Stdout: a.io.out, Stderr: a.io.err, Stop: a.ctx.Done(),
			Announce: func(name string, delivery int) {
				fmt.Fprintln(a.io.err, a.t("agenthost.relay.started", "Agent", name, "Delivery", delivery))
			},
			ReadBack: func(dispatch int) {
				fmt.Fprintln(a.io.err, a.t("agenthost.relay.read_back", "Dispatch", dispatch))
			},
			// Said before the controller's thresholds, so that a step
			// queued or computing on its agent is not taken for hung.
			WarningAfter: warningAfter, StaleAfter: staleAfter,
			Waiting: func(lane string, queued time.Duration) {
				fmt.Fprintln(a.io.err, a.t("agenthost.relay.waiting", "Lane", lane, "Queued", roughly(queued)))
			},
			Computing: func(agent string, cpu, over time.Duration) {
				fmt.Fprintln(a.io.err, a.t("agenthost.relay.computing", "Agent", agent, "CPU", roughly(cpu), "Over", roughly(over)))
			},
		})
		if err != nil {
			return failf("E_AGENT_FAILED", err.Error())
		}
		if code != 0 {
			return &exitError{code: code}
		}
		return nil
	}
	return c
}

// roughly is a duration as a person reads it in a relay's line: tenths
// of a second below ten seconds, whole seconds above.
func roughly(d time.Duration) string {
	if d >= 10*time.Second {
		return d.Round(time.Second).String()
	}
	return d.Round(100 * time.Millisecond).String()
}
