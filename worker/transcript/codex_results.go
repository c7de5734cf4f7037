package transcript

import "strings"

// codexUsage is turn.completed's usage. input_tokens includes the cached
// input (cached_input_tokens counts that part). After "codex exec
// resume" the figures are the thread's running total, not the turn's
// (cache_write_input_tokens, from 0.169, is also part of the input):
// the consumer takes the difference from the thread's last total.
type codexUsage struct {
	InputTokens       int64 `json:"input_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens"`
	CacheWriteTokens  int64 `json:"cache_write_input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
}

func (u *codexUsage) usage() *Usage {
	if u == nil {
		return nil
	}
	return &Usage{InputTokens: u.InputTokens, CacheReadTokens: u.CachedInputTokens, CacheCreationTokens: u.CacheWriteTokens,
		OutputTokens: u.OutputTokens, Total: TotalThread}
}

// codexResult completes a tool result with what the item says of its
// run: the command's output (the end of it) and whether it was refused
// rather than run. Codex reports a sandbox's refusal as a failed item, or
// "declined" when an approval was refused.
func codexResult(ev Event, it *codexItem) Event {
	ev.Output = toolOutputTail(it.AggregatedOutput)
	ev.Denied = it.Status == "declined" || (ev.Failed && codexSandboxDenial(it.AggregatedOutput))
	return ev
}

// codexSandboxDenial reports whether a failed command's output is the
// sandbox's refusal ("writing is blocked by read-only sandbox", a
// seccomp/landlock "Operation not permitted" of a write).
func codexSandboxDenial(out string) bool {
	return strings.Contains(out, "read-only sandbox") || strings.Contains(out, "sandbox denied")
}

// fileChanges are the tool calls of a file_change item, one per path, so
// that each edited file is a tool use of its own (the item itself may
// arrive only completed, without item.started). They share the item's id:
// its result ends them all.
func fileChanges(it *codexItem) []Event {
	events := make([]Event, 0, len(it.Changes))
	for _, c := range it.Changes {
		events = append(events, Event{Type: EventTool, Tool: "file_change", ID: it.ID, Text: cutRunes(c.Path, maxDetail)})
	}
	return events
}
