package controller

import (
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/worker"
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

// consume reads the worker's records until they end: each line goes to
// the windows as a notice, and, within bounds, to events.jsonl in
// batches. (The heartbeat reads each process's own LastActivity.)
func (c *Controller) consume(r *run, step, lane string, proc *worker.Process) {
	p := r.pipeline
	var batch []any
	logged, omitted, dropped := 0, 0, 0
	flush := func() {
		if len(batch) == 0 {
			return
		}
		c.record(c.events.system(p.TaskID, p.RunID, step, ledger.SeverityInfo, OpWorkerOutput,
			"lines", batch, "dropped", dropped))
		batch, dropped = batch[:0:0], 0
	}
	timer := time.NewTimer(outputBatchDelay)
	defer timer.Stop()
	records := proc.Records()
	for {
		select {
		case rec, ok := <-records:
			if !ok {
				flush()
				if omitted > 0 {
					c.record(c.events.system(p.TaskID, p.RunID, step, ledger.SeverityInfo, OpWorkerOutput,
						"lines", []any{}, "omitted", omitted))
				}
				return
			}
			dropped += rec.Dropped
			if rec.Status == worker.StatusGap {
				continue
			}
			// Windows get what the line means (a structured line is
			// described, a heartbeat not shown); the ledger keeps it raw.
			if shown := worker.DescribeRecord(c.loc, rec); shown != "" {
				c.notify(relay.Notice{Kind: relay.NoticeWorkerOutput, Output: &relay.OutputLine{
					TaskID: p.TaskID, RunID: p.RunID, StepID: step, Lane: lane,
					Stream: string(rec.Stream), Line: shown, Truncated: rec.Truncated,
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
