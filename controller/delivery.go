package controller

import (
	"encoding/json"
	"strings"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/worker/transcript"
)

// commitSubjectRunes bounds the instruction in a delivery commit's
// subject line, as git's own tools expect a short one.
const commitSubjectRunes = 72

// commitMessage is the message of the commit an accept makes of the
// work an agent left uncommitted: the instruction as the subject, the
// review's summary as the body, and trailers naming the task, run and
// step, so that `git log` leads back to the ledger.
func commitMessage(p ledger.PipelineState, instruction, step, summary string) string {
	var b strings.Builder
	subject := transcript.OneLine(instruction, commitSubjectRunes)
	if subject == "" {
		subject = p.TaskID + "/" + p.RunID + "/" + step
	}
	b.WriteString("daokit: " + subject + "\n\n")
	if s := strings.TrimSpace(summary); s != "" {
		b.WriteString("Review: " + s + "\n\n")
	}
	b.WriteString("Daokit-Task: " + p.TaskID + "\nDaokit-Run: " + p.RunID + "\nDaokit-Step: " + step + "\n")
	return b.String()
}

// reviewSummary is what the review of the step's change said: the
// latest reviewer's verdict, else the step's final words. The run's own
// output while it is in memory; after a restart, the records its
// pipeline keeps. Called on the state loop.
func reviewSummary(r *run, step string) string {
	if v := r.output.Verdict; v != nil && strings.TrimSpace(v.Reason) != "" {
		return v.Reason
	}
	lc := r.pipeline.RoleLifecycle
	verdict, text := "", ""
	for _, k := range ledger.Object(lc).Keys() {
		if !strings.HasPrefix(k, keyOutput) {
			continue
		}
		var rec stepRecord
		if json.Unmarshal([]byte(lc.Get(k)), &rec) != nil {
			continue
		}
		if rec.Verdict != nil && rec.Verdict.Reason != "" {
			verdict = rec.Verdict.Reason
		}
		if k == keyOutput+step && rec.Text != "" {
			text = rec.Text
		}
	}
	switch {
	case verdict != "":
		return verdict
	case r.output.Text != "":
		return r.output.Text
	}
	return text
}
