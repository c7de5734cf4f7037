package controller

import (
	"context"
	"os"
	"path/filepath"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/internal/proc"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
	"github.com/daokit/daokit/workflow"
)

// Operations of the SYSTEM events about [[workflow.callbacks]].
const (
	opCallbackExited  = string(vocab.OpCallbackExited)
	opCallbackDropped = string(vocab.OpCallbackDropped)
)

// callbackGrace is how long a closing callback may take to be handed
// what it still has queued and to exit; its end is waited for off the
// run's path.
const callbackGrace = workflow.DefaultDrain

// debugExt ends the name of a debug callback's log, <name>.jsonl.
const debugExt = ".jsonl"

// userSink is one [[workflow.callbacks]] entry at work: where its lines
// go (a program's stdin or the debug log) and whom to tell about it.
type userSink struct {
	name          string
	taskID, runID string // of the run it hears; globalID for the bus
	lines         *workflow.LineSink
	cmd           *workflow.CommandSink // kind command
	file          *os.File              // kind debug
	// unsubscribe takes a listener of the bus off it.
	unsubscribe func()
}

// callbackDir is the folder of a run's callback logs (a debug
// callback's <name>.jsonl, a command's <name>.log):
// <root>/artifacts/callbacks/<task>/<run>, and the bus's
// <root>/artifacts/callbacks/controller. Not under the run's own
// artifact folder: its files' times are the run's implicit heartbeat
// (liveness.NewestOutput), which a callback printing on its own must
// not fake.
func (c *Controller) callbackDir(taskID, runID string) (string, error) {
	base := filepath.Join(ledger.Layout{Root: c.opts.Root}.Artifacts(), "callbacks")
	if taskID == globalID {
		return filepath.Join(base, globalID), nil
	}
	for _, id := range [...]struct{ kind, v string }{{"task_id", taskID}, {"run_id", runID}} {
		if err := ledger.CheckID(id.kind, id.v); err != nil {
			return "", err
		}
	}
	return filepath.Join(base, taskID, runID), nil
}

// startUserSink starts cb for the run taskID/runID (or the bus). A
// callback that cannot start is reported and left out: the run goes on.
func (c *Controller) startUserSink(ctx context.Context, cb config.Callback, taskID, runID string) *userSink {
	u := &userSink{name: cb.Name, taskID: taskID, runID: runID}
	switch cb.Type() {
	case config.CallbackDebug:
		dir, err := c.callbackDir(taskID, runID)
		if err == nil {
			err = os.MkdirAll(dir, 0o755)
		}
		if err == nil {
			u.file, err = os.OpenFile(filepath.Join(dir, cb.Name+debugExt), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		}
		if err != nil {
			c.callbackGone(u, err)
			return nil
		}
		u.lines = workflow.NewLineSink(u.file, cb.Queue, func(err error) { c.callbackGone(u, err) })
	default:
		dir := cb.Dir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(c.opts.Root, dir)
		}
		// What the program prints goes to <name>.log beside the debug
		// logs: a person writing a callback sees its errors there.
		out := c.callbackOutput(taskID, runID, cb.Name)
		ctx = proc.WithStep(ctx, "callback-"+cb.Name)
		s, err := workflow.StartCommandSink(ctx, workflow.CommandOptions{Argv: cb.Command, Dir: dir, Env: cb.Env,
			Queue: cb.Queue, Output: out, Gone: func(err error) { c.callbackGone(u, err) }})
		if out != nil {
			_ = out.Close() // the program has its copy
		}
		if err != nil {
			c.callbackGone(u, err)
			return nil
		}
		u.cmd, u.lines = s, s.LineSink
	}
	return u
}

// callbackOutput opens the log of a command callback's stdout and
// stderr, <callback folder>/<name>.log; nil (the output is discarded)
// when it cannot.
func (c *Controller) callbackOutput(taskID, runID, name string) *os.File {
	dir, err := c.callbackDir(taskID, runID)
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	var f *os.File
	if err == nil {
		f, err = os.OpenFile(filepath.Join(dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	}
	if err != nil {
		c.log.Warn("callback output discarded", "callback", name, "err", err)
		return nil
	}
	return f
}

// callbackGone records, once per callback, that it could not start or
// stopped listening: the run goes on without it.
func (c *Controller) callbackGone(u *userSink, err error) {
	c.log.Warn("callback stopped listening", "callback", u.name, "run", u.runID, "err", err)
	c.note(c.events.system(u.taskID, u.runID, "", ledger.SeverityWarn, opCallbackExited,
		"callback", u.name, "error", err.Error()))
}

// close hands the callback what it still has queued (for at most
// callbackGrace), ends it and records what it missed.
func (c *Controller) closeUserSink(u *userSink) {
	if u.cmd != nil {
		u.cmd.Close(callbackGrace)
	} else {
		u.lines.CloseQueue()
		<-u.lines.Done() // a file takes its lines at once
		_ = u.file.Close()
	}
	if n := u.lines.Dropped(); n > 0 {
		c.log.Warn("callback dropped events", "callback", u.name, "run", u.runID, "dropped", n)
		c.note(c.events.system(u.taskID, u.runID, "", ledger.SeverityWarn, opCallbackDropped,
			"callback", u.name, "dropped", n, "written", u.lines.Written()))
	}
}

// runCallbacks starts the callbacks of [[workflow.callbacks]] that hear
// one run (events = "run") and returns them with the function that
// closes them once the flow has ended. Closing happens off the run's
// path: the run ends without waiting for a slow callback, and the
// controller's shutdown waits for it (c.runs).
func (c *Controller) runCallbacks(r *run) ([]workflow.Callback, func()) {
	var taskID, runID string
	c.do(func(*loopState) {
		taskID, runID = r.pipeline.TaskID, r.pipeline.RunID
	})
	var cbs []workflow.Callback
	var sinks []*userSink
	for _, cb := range c.cfg.Workflow.Callbacks {
		if cb.Listens() != config.CallbackEventsRun {
			continue
		}
		u := c.startUserSink(c.runCtx, cb, taskID, runID)
		if u == nil {
			continue
		}
		sinks = append(sinks, u)
		cbs = append(cbs, &workflow.LineCallback{Task: taskID, Run: runID, Out: u.lines, NoText: !cb.Lines, Now: c.now})
	}
	return cbs, func() {
		if len(sinks) == 0 {
			return
		}
		c.runs.Go(func() {
			for _, u := range sinks {
				c.closeUserSink(u)
			}
		})
	}
}

// startListeners starts the callbacks that hear the controller's event
// stream (events = "all"): once per controller, subscribed to the bus.
func (c *Controller) startListeners() {
	for _, cb := range c.cfg.Workflow.Callbacks {
		if cb.Listens() != config.CallbackEventsAll {
			continue
		}
		if u := c.startUserSink(c.runCtx, cb, globalID, globalID); u != nil {
			c.listeners = append(c.listeners, u)
		}
	}
	for _, u := range c.listeners {
		u.unsubscribe = c.bus.Subscribe(u.lines)
	}
}

// stopListeners unsubscribes the bus's callbacks and closes them.
func (c *Controller) stopListeners() {
	for _, u := range c.listeners {
		u.unsubscribe()
		c.closeUserSink(u)
	}
	c.listeners = nil
}
