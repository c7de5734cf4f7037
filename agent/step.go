package agent

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/daokit/daokit/hub/steps"
	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/worker/transcript"
	"github.com/nats-io/nats.go/jetstream"
)

// publishWait bounds the wait for the hub's acknowledgement of a step's
// records once it ended.
const publishWait = 10 * time.Second

// endWait bounds the tries to store a step's end: longer than a hub
// restart takes, for the end of a step that ran is what keeps it from
// running again.
const endWait = 3 * publishWait

// lineBatchWait and lineBatchBytes bound a batch of output lines: a
// line reaches the controller at most lineBatchWait late, and a batch
// stays under the hub's 1 MiB message limit (a line that passes
// lineBatchBytes ends its batch).
const (
	lineBatchWait  = 20 * time.Millisecond
	lineBatchBytes = 256 << 10
)

// agentLineLimit is the longest line an agent CLI's step sends back
// whole: their JSON lines carry tool outputs, and the controller decodes
// them from the relay's output.
const agentLineLimit = 8 << 20

// handle runs one delivery of a step, unless the step is settled
// already (ended, given up, or followed by a newer dispatch).
func (a *Agent) handle(ctx context.Context, lane string, msg jetstream.Msg) {
	receivedAt := time.Now()
	var s steps.Step
	meta, err := msg.Metadata()
	if err != nil || json.Unmarshal(msg.Data(), &s) != nil || s.Key == "" {
		a.log.Warn("a message on the step queue that is no step", "lane", lane, "err", err)
		_ = msg.Term()
		return
	}
	delivery := int(meta.NumDelivered)
	log := a.log.With("lane", lane, "key", s.Key, "dispatch", s.Dispatch, "delivery", delivery)
	// The stop request first: a relay publishes the end of a step no
	// agent started before its request, so the check below sees one or
	// this subscription hears the other, unless the link dropped in
	// between (then the check is made again before the step starts).
	reconnects := a.c.NC.Stats().Reconnects
	stops, err := a.listenStop(s)
	if err != nil {
		log.Warn("subscribe to the step's stop requests", "err", err)
		return // redelivered after AckWait
	}
	defer stops.close()
	h, err := a.watchStarts(s, delivery)
	if err != nil {
		log.Warn("subscribe to the step's starts", "err", err)
		return // redelivered after AckWait
	}
	defer h.release()
	rn := newRenewer(a.c, msg, a.o.AckWait)
	rn.start()
	defer rn.stop()
	if !a.admit(ctx, s, delivery, msg, h, rn, log) {
		return
	}

	spec, tree, cleanup, err := a.prepare(ctx, s, delivery)
	if err != nil {
		log.Warn("prepare the step", "err", err)
		a.end(ctx, s, msg, steps.Record{Type: steps.TypeEnd, Delivery: delivery, ExitCode: -1, Error: err.Error()}, log)
		return
	}
	defer cleanup()
	if a.c.NC.Stats().Reconnects != reconnects {
		// The link dropped while the step was prepared: what it did
		// not hear is looked up.
		if done, elsewhere := a.look(ctx, s, delivery, msg, log); done {
			return // ended or given up while the link was down
		} else if elsewhere {
			log.Warn("another agent started the step while the link was down: not started here")
			return // redelivered after AckWait: its next agent finds that one's end, or waits for it
		}
	}
	select {
	case <-h.superseded:
		log.Warn("another agent started the step while it was prepared here: not started here")
		return
	default:
	}
	startAt := time.Now()
	log.Debug("start the step", "argv", spec.Argv, "queued_for", startAt.Sub(meta.Timestamp))
	if a.o.Started != nil {
		a.o.Started(s, delivery)
	}
	pctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	proc, err := worker.Start(pctx, spec)
	if err != nil {
		a.end(ctx, s, msg, steps.Record{Type: steps.TypeEnd, Delivery: delivery, ExitCode: -1, Error: err.Error()}, log)
		return
	}
	defer proc.Discard()
	beaten := make(chan struct{})
	go func() {
		defer close(beaten)
		a.beat(s, delivery, proc.PID(), proc.Done())
	}()
	// Watched from the process's start: a hub that went silent must not
	// hold the fence up behind a publish waiting for it.
	fencedCh := make(chan bool, 1)
	go func() { fencedCh <- a.watch(ctx, proc, stops.stopped, rn.lost, h.superseded) }()
	stops.poll(max(a.o.AckWait/4, 10*time.Millisecond))
	a.announce(ctx, s.Key, steps.Record{Type: steps.TypeStart, Dispatch: s.Dispatch, Delivery: delivery,
		Agent: a.o.Name, PID: proc.PID(), QueuedAt: meta.Timestamp.UnixNano(), ReceivedAt: receivedAt.UnixNano(), StartAt: startAt.UnixNano(),
		SpawnAt: s.SpawnAt, RelayAt: s.RelayAt}, proc.Done(), log)
	forwarded := make(chan struct{})
	go func() {
		defer close(forwarded)
		a.forward(s, delivery, proc.Records())
	}()
	res := proc.Wait()
	<-forwarded
	<-beaten
	if <-fencedCh {
		log.Warn("gave the step up", "lost_hub", ctx.Err() == nil)
		return
	}
	select {
	case <-h.superseded:
		// Ended as a later delivery started: that one's end is the
		// step's, and this delivery's acknowledgement must not end it.
		log.Warn("a later delivery of the step started elsewhere: its end is the step's")
		return
	default:
	}
	end := steps.Record{Type: steps.TypeEnd, Delivery: delivery, ExitCode: res.ExitCode, Signal: int(res.Signal),
		Stopped: string(res.Stopped), PID: res.PID}
	if res.ArtifactErr != nil {
		end.Error = res.ArtifactErr.Error()
	}
	if tree != "" {
		// What the step changed goes back with its end.
		if err := a.sendPatch(ctx, s, delivery, tree, &end); err != nil {
			log.Warn("send the step's change back", "err", err)
			end.Error = strings.TrimSpace(end.Error + "\n" + err.Error())
			end.ExitCode = max(end.ExitCode, 1)
		}
	}
	a.end(ctx, s, msg, end, log)
}

// announce publishes the step's start record (see publishUntil): a
// start lost to a hub restart would leave the relay printing none of the
// step's output, and its controller judging the step silent.
func (a *Agent) announce(ctx context.Context, key string, start steps.Record, ended <-chan struct{}, log *slog.Logger) {
	if err := a.publishUntil(ctx, key, start, ended, publishWait); err != nil {
		log.Warn("announce the step", "err", err)
	}
}

// publishUntil publishes r, tried again until the hub acknowledges it
// (it stores a record once, by its id), done closes, ctx ends or within
// passes; each try is bounded by a quarter of AckWait, so that one sent
// into a connection the hub restarted under is sent again soon.
func (a *Agent) publishUntil(ctx context.Context, key string, r steps.Record, done <-chan struct{}, within time.Duration) error {
	try := max(a.o.AckWait/4, 200*time.Millisecond)
	deadline := time.Now().Add(within)
	for {
		pctx, cancel := context.WithTimeout(ctx, try)
		err := a.c.Publish(pctx, key, r)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-done:
			return err
		default:
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
	}
}

// sendPatch publishes what the step changed in its worktree tree from
// its base commit and names it in its end.
func (a *Agent) sendPatch(ctx context.Context, s steps.Step, delivery int, tree string, end *steps.Record) error {
	patch, err := steps.DiffFrom(ctx, tree, s.Commit)
	if err != nil || len(patch) == 0 {
		return err
	}
	name := steps.PatchName(s.Key, s.Dispatch, delivery)
	if err := a.c.PublishPatch(ctx, name, patch); err != nil {
		return err
	}
	end.Patch = name
	return nil
}

// forward sends the step's output back in batches of the lines that
// came within lineBatchWait (at most lineBatchBytes), until recs ends.
func (a *Agent) forward(s steps.Step, delivery int, recs <-chan transcript.Record) {
	var (
		seq   int64
		batch []steps.Line
		size  int
	)
	flush := func() {
		if len(batch) == 0 {
			return
		}
		seq++
		_ = a.c.PublishAsync(s.Key, steps.Record{Type: steps.TypeLine, Dispatch: s.Dispatch, Delivery: delivery, Seq: seq, Lines: batch})
		batch, size = nil, 0
	}
	tick := time.NewTicker(lineBatchWait)
	defer tick.Stop()
	for {
		select {
		case rec, ok := <-recs:
			if !ok {
				flush()
				return
			}
			if rec.Status == transcript.StatusGap {
				continue
			}
			stream := steps.StreamStdout
			if rec.Stream == transcript.Stderr {
				stream = steps.StreamStderr
			}
			batch = append(batch, steps.Line{Stream: stream, Text: rec.Text})
			if size += len(rec.Text); size >= lineBatchBytes {
				flush()
			}
		case <-tick.C:
			flush()
		}
	}
}

// watch stops the step's process when its relay asks (a stop), and
// kills it at once when the agent loses the step (its renewals lost, a
// later delivery started by another agent, or the agent stopping: the
// hub hands the step to another agent, and two must never run it). It
// returns once the process is gone or stopped, reporting whether the
// step was lost.
func (a *Agent) watch(ctx context.Context, proc *worker.Process, stopped, lost, superseded <-chan struct{}) bool {
	kill := func(cause transcript.StopCause) bool {
		proc.Stop(cause)
		_ = syscall.Kill(-proc.PID(), syscall.SIGKILL) // the group, without the grace
		return true
	}
	select {
	case <-proc.Done():
	case <-stopped:
		proc.Stop(transcript.StopCancelled)
	case <-lost:
		return kill(transcript.StopLeaseLost)
	case <-superseded:
		return kill(transcript.StopLeaseLost)
	case <-ctx.Done():
		return kill(transcript.StopCancelled)
	}
	return false
}

// settled handles a delivery that must not run: a dispatch that ended
// (its agent died between the end and the acknowledgement: the end
// stands, said with a skip record), that is over or superseded, or that
// its relay asked to stop before any agent started it. It reports
// whether the delivery was handled so.
func (a *Agent) settled(ctx context.Context, s steps.Step, delivery int, msg jetstream.Msg, log *slog.Logger) bool {
	done, _ := a.look(ctx, s, delivery, msg, log)
	return done
}

// look is settled that also reports whether another agent started this
// delivery (or a later one) of the dispatch already: a hub SIGKILLed
// before it wrote down that it delivered the step hands the same
// delivery out again, and the agent handed it second must wait for the
// first as for a redelivery (its start came before this agent listened
// for starts, so holding would never hear it).
func (a *Agent) look(ctx context.Context, s steps.Step, delivery int, msg jetstream.Msg, log *slog.Logger) (done, elsewhere bool) {
	// The three looked up at once: one round trip to the hub before a
	// step starts, not three.
	type found struct {
		r   *steps.Record
		err error
	}
	var end, disp, stop, start found
	var wg sync.WaitGroup
	for _, l := range []struct {
		typ string
		to  *found
	}{{steps.TypeEnd, &end}, {steps.TypeDispatch, &disp}, {steps.TypeStop, &stop}, {steps.TypeStart, &start}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.to.r, l.to.err = a.c.Last(ctx, s.Key, l.typ)
		}()
	}
	wg.Wait()
	if end, err := end.r, end.err; err != nil {
		log.Warn("look for the step's end", "err", err)
		return true, false // redelivered after AckWait
	} else if end != nil && end.Dispatch == s.Dispatch {
		_ = a.c.Publish(ctx, s.Key, steps.Record{Type: steps.TypeSkip, Dispatch: s.Dispatch, Delivery: delivery, Agent: a.o.Name})
		_ = msg.Term()
		return true, false
	}
	if d, err := disp.r, disp.err; err != nil {
		log.Warn("look for the step's dispatch", "err", err)
		return true, false
	} else if d != nil && (d.Dispatch > s.Dispatch || (d.Dispatch == s.Dispatch && d.Type == steps.TypeClosed)) {
		_ = msg.Term()
		return true, false
	}
	if st, err := stop.r, stop.err; err != nil {
		log.Warn("look for the step's stop", "err", err)
		return true, false
	} else if st != nil && st.Dispatch == s.Dispatch {
		a.end(ctx, s, msg, steps.Record{Type: steps.TypeEnd, Delivery: delivery, ExitCode: -1, Stopped: string(transcript.StopCancelled)}, log)
		return true, false
	}
	r := start.r
	return false, start.err == nil && r != nil && r.Dispatch == s.Dispatch && r.Delivery >= delivery && r.Agent != "" && r.Agent != a.o.Name
}

// end sends the step's end, then acknowledges the step: an agent that
// dies between the two leaves an end that the next delivery finds (see
// settled), never a step run twice.
func (a *Agent) end(ctx context.Context, s steps.Step, msg jetstream.Msg, end steps.Record, log *slog.Logger) {
	end.Dispatch, end.Agent = s.Dispatch, a.o.Name
	pctx, cancel := context.WithTimeout(ctx, publishWait)
	defer cancel()
	select {
	case <-a.c.JS.PublishAsyncComplete():
	case <-pctx.Done():
	}
	// Tried again through a hub restart: a step that ran to its end
	// and could not say so would run again.
	if err := a.publishUntil(ctx, s.Key, end, nil, endWait); err != nil {
		log.Warn("send the step's end", "err", err)
		return // redelivered: the next agent runs it or finds its end
	}
	if err := msg.DoubleAck(pctx); err != nil {
		log.Warn("acknowledge the step", "err", err)
	}
}

// prepare builds the step's process: its folder (a worktree of the
// step's base commit, returned as tree, or a scratch folder), its
// environment and its logs, under the work directory. cleanup removes
// the worktree.
func (a *Agent) prepare(ctx context.Context, s steps.Step, delivery int) (spec worker.Spec, tree string, cleanup func(), err error) {
	name := s.Key + "-" + strconv.Itoa(s.Dispatch) + "-" + strconv.Itoa(delivery)
	dir := filepath.Join(a.o.WorkDir, "steps", name)
	cleanup = func() {}
	env := append([]string(nil), s.Env...)
	if s.Commit != "" {
		if err := a.checkout(ctx, s, dir); err != nil {
			return worker.Spec{}, "", cleanup, err
		}
		tree = dir
		cleanup = func() { a.removeWorktree(s.Remote, tree) }
		env = append(env, worker.EnvWorktree+"="+dir)
		if s.Subdir != "" {
			dir = filepath.Join(dir, filepath.FromSlash(s.Subdir))
		}
	} else if err := mkdirAll(dir); err != nil {
		return worker.Spec{}, "", cleanup, err
	}
	env = append(env, "DAOKIT_AGENT="+a.o.Name)
	argv := make([]string, len(s.Argv))
	for i, arg := range s.Argv {
		if arg == steps.SelfArg {
			arg = a.o.Self
		}
		argv[i] = arg
	}
	spec = worker.Spec{
		Argv: argv, Dir: dir, Env: env, Stdin: s.Stdin, UseStdin: s.UseStdin, Kind: s.Kind,
		ArtifactDir: filepath.Join(a.o.WorkDir, "logs", name), Timeout: s.Timeout(), StopGrace: s.StopGrace(),
	}
	if s.Kind == "claude" || s.Kind == "codex" {
		spec.LineLimit = agentLineLimit
	}
	return spec, tree, cleanup, nil
}
