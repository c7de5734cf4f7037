package controller

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// prBody is the description of the pull request an accepted change
// becomes, in the person's language: the task, every review verdict
// with its findings, the judge's last decision and what the run cost,
// so that whoever reviews the pull request sees what daokit's team
// already said about it. It holds no secret: only what the ledger
// holds. Called on the state loop.
func prBody(loc *i18n.Localizer, p *ledger.PipelineState, instruction, step string) string {
	lc := p.RoleLifecycle
	var b strings.Builder
	section := func(id string) { b.WriteString("## " + loc.T(id) + "\n\n") }

	section("controller.pr.task")
	b.WriteString(quoted(instruction) + "\n\n")

	section("controller.pr.review")
	verdicts := 0
	for _, k := range ledger.Object(lc).Keys() {
		id, ok := strings.CutPrefix(k, keyOutput)
		if !ok {
			continue
		}
		var rec stepRecord
		if json.Unmarshal([]byte(lc.Get(k)), &rec) != nil || rec.Verdict == nil {
			continue
		}
		verdicts++
		v := rec.Verdict
		b.WriteString("- **" + id + "** · `" + string(v.Decision) + "`")
		if r := strings.TrimSpace(v.Reason); r != "" {
			b.WriteString(": " + oneLine(r))
		}
		b.WriteString("\n")
		for _, f := range v.Findings {
			b.WriteString("  - " + oneLine(f) + "\n")
		}
	}
	if verdicts == 0 {
		b.WriteString(loc.T("controller.pr.no_review") + "\n")
	}
	b.WriteString("\n")

	section("controller.pr.judge")
	if code := lc.Get(keyDecisionCode); code != "" {
		judge := lc.Get(keyJudge)
		if judge == "" {
			judge = "-"
		}
		b.WriteString(loc.T("controller.pr.judge_line", "Judge", judge, "Code", code, "Label", vocab.Reason(code).Label(loc)))
		if r := strings.TrimSpace(lc.Get(keyDecisionReason)); r != "" {
			b.WriteString(": " + oneLine(r))
		}
		b.WriteString("\n\n")
	} else {
		b.WriteString(loc.T("controller.pr.no_judge") + "\n\n")
	}

	section("controller.pr.cost")
	cost, _ := strconv.ParseFloat(lc.Get(keyCostUSD), 64)
	in, _ := strconv.ParseInt(lc.Get(keyInputTokens), 10, 64)
	out, _ := strconv.ParseInt(lc.Get(keyOutputTokens), 10, 64)
	if cost == 0 && in == 0 && out == 0 {
		b.WriteString(loc.T("controller.pr.no_cost") + "\n\n")
	} else {
		b.WriteString(loc.T("controller.pr.cost_line", "USD", strconv.FormatFloat(cost, 'f', 4, 64),
			"Input", in, "Output", out) + "\n\n")
	}
	b.WriteString("---\n" + loc.T("controller.pr.footer", "Task", p.TaskID, "Run", p.RunID, "Step", step) + "\n")
	return b.String()
}

// quoted shows text as a Markdown quote, so that an instruction's own
// headings and lists stay inside the task's section.
func quoted(text string) string {
	text = strings.TrimSpace(text)
	if text == "" {
		return "> -"
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+l, " ")
	}
	return strings.Join(lines, "\n")
}

// oneLine keeps a reason or a finding on its list item's line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// prTitle is the pull request's title: the delivery commit's subject.
func prTitle(p ledger.PipelineState, instruction, step string) string {
	subject, _, _ := strings.Cut(commitMessage(p, instruction, step, ""), "\n")
	return subject
}
