package workflow

import (
	"fmt"
	"strings"
)

// BriefInput is what an agent's instruction is made of.
type BriefInput struct {
	Role      Role
	Task      string
	Iteration int
	// Review is the previous iteration's review (for a coder), or nil.
	Review *Verdict
	// Coder is what this iteration's coder said (for a reviewer).
	Coder *Output
}

// Brief turns a task into an agent's instruction. The controller sets one
// that speaks the workers' language; DefaultBrief speaks English.
type Brief func(BriefInput) string

// DefaultBrief hands a coder the task and, after a review, the findings it
// must address; a reviewer the task, what the coder said, and how to
// state its verdict.
func DefaultBrief(b BriefInput) string {
	var sb strings.Builder
	switch b.Role {
	case RoleReviewer:
		fmt.Fprintf(&sb, "Review the change made for this task: %s\n", b.Task)
		if b.Coder != nil && strings.TrimSpace(b.Coder.Text) != "" {
			fmt.Fprintf(&sb, "The coder reported: %s\n", strings.TrimSpace(b.Coder.Text))
		}
		sb.WriteString("List each finding on a line starting with \"- \", then end with one line: " +
			"VERDICT: approve — <reason>, or VERDICT: request_changes — <reason>.")
	default:
		sb.WriteString(b.Task)
		if v := b.Review; v != nil && v.Decision == RequestChanges {
			fmt.Fprintf(&sb, "\n\nThe review of iteration %d requested changes", b.Iteration-1)
			if v.Reason != "" {
				fmt.Fprintf(&sb, " (%s)", v.Reason)
			}
			sb.WriteString(". Address these findings:")
			for _, f := range v.Findings {
				sb.WriteString("\n- " + f)
			}
		}
	}
	return sb.String()
}

// judgeBrief is the instruction of an agent judge.
func judgeBrief(r Round) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Decide whether this task is done after iteration %d: %s\n", r.Iteration, r.Task)
	if v := r.Verdict; v != nil {
		fmt.Fprintf(&sb, "The reviewer said %s", v.Decision)
		if v.Reason != "" {
			fmt.Fprintf(&sb, " (%s)", v.Reason)
		}
		sb.WriteString(".\n")
	}
	sb.WriteString("End with one line: VERDICT: approve — <reason> if it is done, or VERDICT: request_changes — <reason>.")
	return sb.String()
}
