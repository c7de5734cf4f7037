package controller

import (
	"strings"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/internal/say"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/worker/transcript"
	"github.com/daokit/daokit/workflow"
)

// Bounds on how much worker output reaches events.jsonl. Every byte is in
// the artifact files; the ledger keeps a digest so that a flooding worker
// cannot grow it without limit.
const (
	outputBatchLines   = 50                     // lines per WORKER_OUTPUT event
	outputBatchDelay   = 250 * time.Millisecond // flush a partial batch after this
	outputLinesPerStep = 2000                   // lines an attempt may put in events
	outputLineBytes    = 2000                   // characters kept of one line in events
)

// consume reads the worker's records until they end and the worker is
// gone: each line goes to the windows as a notice, and, within bounds, to
// events.jsonl in batches. Meanwhile it handles the liveness loop's
// observations about the worker (see observed): the run's goroutine waits
// here for its worker, so it is the one that acts on its silence. (The
// loop reads each process's own LastActivity.)
func (c *Controller) consume(r *run, step, lane string, proc *worker.Process) {
	var p ledger.PipelineState
	var obs *workflow.Observer
	var top string
	var laneCfg config.Lane
	c.do(func(*loopState) {
		p, obs, top = r.pipeline, r.observe, r.treeTop()
		laneCfg, _ = c.cfg.Lane(lane)
	})
	usage := c.meter(r, laneCfg)
	var batch []any
	logged, omitted, dropped := 0, 0, 0
	flush := func() {
		if len(batch) == 0 {
			return
		}
		c.note(c.events.system(p.TaskID, p.RunID, step, ledger.SeverityInfo, opWorkerOutput,
			"lines", batch, "dropped", dropped))
		batch, dropped = batch[:0:0], 0
	}
	timer := time.NewTimer(outputBatchDelay)
	defer timer.Stop()
	records, gone := proc.Records(), proc.Done()
	for records != nil || gone != nil {
		select {
		case o := <-r.obs:
			c.observed(r, proc, o)
		case <-gone:
			gone = nil
		case rec, ok := <-records:
			if !ok {
				flush()
				if omitted > 0 {
					c.note(c.events.system(p.TaskID, p.RunID, step, ledger.SeverityInfo, opWorkerOutput,
						"lines", []any{}, "omitted", omitted))
				}
				records = nil
				continue
			}
			dropped += rec.Dropped
			if rec.Status == transcript.StatusGap {
				continue
			}
			r.texts = observeRecord(obs, r.texts, &rec, usage, top)
			for _, ev := range rec.Events {
				if ev.Type == transcript.EventSession && ev.ID != "" {
					c.bindSession(r, step, lane, ev.ID)
				}
				if ev.Type == transcript.EventRetry {
					c.agentRetried(r, step, lane, proc, ev)
				}
			}
			// Windows get what the line means (a structured line is
			// described, a heartbeat not shown); the ledger keeps it raw.
			// The parts go with the controller's wording, for each window
			// to word in its own language.
			if shown := transcript.DescribeRecord(c.loc, rec); shown != "" {
				c.notify(relay.Notice{Kind: relay.NoticeWorkerOutput, Output: &relay.OutputLine{
					TaskID: p.TaskID, RunID: p.RunID, StepID: step, Lane: lane,
					Stream: string(rec.Stream), Line: shown, Truncated: rec.Truncated, Parts: say.ToRelay(transcript.PartsOf(rec)),
				}})
			}
			if logged >= outputLinesPerStep {
				omitted++
				continue
			}
			logged++
			if len(batch) == 0 {
				timer.Reset(outputBatchDelay)
			}
			batch = append(batch, ledger.ObjectOf("stream", string(rec.Stream), "line", clip(rec.Text, outputLineBytes)))
			if len(batch) >= outputBatchLines {
				flush()
			}
		case <-timer.C:
			flush()
		}
	}
}

// clip keeps the first n runes of s.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// keptTexts is how many of a step's last lines are kept to read a
// reviewer's verdict from.
const keptTexts = 64

// observeRecord hands one worker record to the workflow's callbacks
// (tool use, text, result with usage) and keeps its text in texts, the
// step's last lines. Nothing here allocates for an ordinary line.
func observeRecord(obs *workflow.Observer, texts []string, rec *transcript.Record, meter *usageMeter, top string) []string {
	keep := func(s string) {
		if len(texts) == keptTexts {
			copy(texts, texts[1:])
			texts = texts[:keptTexts-1]
		}
		texts = append(texts, s)
	}
	if len(rec.Events) == 0 {
		if rec.Status == transcript.StatusPlain {
			obs.Text(workflow.Text{Body: rec.Text})
			keep(rec.Text)
		}
		return texts
	}
	for i := range rec.Events {
		ev := &rec.Events[i]
		switch ev.Type {
		case transcript.EventTool:
			obs.ToolUse(workflow.ToolUse{Name: ev.Tool, Detail: relTo(top, ev.Text), ID: ev.ID})
		case transcript.EventToolResult:
			obs.ToolResult(workflow.ToolResult{ID: ev.ID, Name: ev.Tool, Detail: relTo(top, ev.Text), Failed: ev.Failed,
				Denied: ev.Denied, Code: ev.Code, Output: ev.Output})
		case transcript.EventDenied:
			// A refusal with a call id (Claude's) also ends that call's
			// tool_result, which the summarizer reads; one without (Codex's
			// sandbox, seen only on stderr) is the only word of it.
			if ev.ID == "" {
				obs.ToolResult(workflow.ToolResult{Name: ev.Tool, Detail: ev.Text, Denied: true})
			}
		case transcript.EventSession:
			meter.session(ev.ID)
		case transcript.EventProgress:
			obs.Text(workflow.Text{Body: ev.Text})
		case transcript.EventMessage:
			obs.Text(workflow.Text{Kind: workflow.TextMessage, Body: ev.Text})
			keep(ev.Text)
		case transcript.EventResult:
			t := workflow.Text{Kind: workflow.TextResult, Body: ev.Text}
			if u := ev.Usage; u != nil && meter != nil {
				t.Usage = meter.increment(u)
			}
			obs.Text(t)
		}
	}
	return texts
}

// outputOf is what a finished step said: its result message, and the
// verdict read from its last lines and that message (the message wins).
func outputOf(texts []string, res worker.Result) workflow.Output {
	var out workflow.Output
	if res.Summary.Result != nil {
		out.Text = res.Summary.Result.Text
	}
	if v, ok := workflow.ParseVerdict(append(append([]string(nil), texts...), out.Text)...); ok {
		out.Verdict = &v
	}
	return out
}

// treeTop is the top of the run's worktree, "" when it has none. Called
// on the state loop.
func (r *run) treeTop() string {
	if r.tree == nil {
		return ""
	}
	return r.tree.wt.Path
}

// relTo names a file in the step's worktree from the worktree's top, as
// the person knows it ("pkg/api/handler.go"): agent CLIs report absolute
// paths, which here lie under the ledger root's worktrees folder. Other
// text is left as it is.
func relTo(top, s string) string {
	if top == "" {
		return s
	}
	if rest, ok := strings.CutPrefix(s, top+"/"); ok && rest != "" {
		return rest
	}
	return s
}
