package controller

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/workflow"
)

// taskSpent is what the task's runs other than runID cost, as their last
// STEP_METRICS events say (run_total): the log is the one record of
// every run, while the pipeline file holds only the latest. It reads the
// whole log, once when a run of a task with task_budget_usd starts.
func (c *Controller) taskSpent(taskID, runID string) float64 {
	f, err := os.Open(ledger.Layout{Root: c.opts.Root}.Events())
	if err != nil {
		return 0
	}
	defer f.Close()
	op, task := []byte(`"`+opStepMetrics+`"`), []byte(`"`+taskID+`"`)
	last := map[string]float64{}
	sc := bufio.NewScanner(f)
	// As long a line as any reader holds: a longer one would end the scan
	// and hide the costs recorded after it.
	sc.Buffer(nil, ledger.MaxReadLineBytes)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, op) || !bytes.Contains(line, task) {
			continue
		}
		e, err := ledger.ParseEvent(line)
		if err != nil || e.TaskID != taskID || e.RunID == runID || e.Payload.String("operation") != opStepMetrics {
			continue
		}
		raw, _ := e.Payload.Get("run_total")
		var total workflow.Cost
		if json.Unmarshal(raw, &total) == nil {
			last[e.RunID] = total.CostUSD
		}
	}
	if err := sc.Err(); err != nil {
		c.log.Warn("read the task's costs", "task_id", taskID, "err", err)
	}
	sum := 0.0
	for _, v := range last {
		sum += v
	}
	return sum
}
