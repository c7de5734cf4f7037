package transcript

import (
	"strconv"
	"strings"
)

// claudeUsage is the usage object of Claude Code's result line. Its
// input_tokens counts only the input that was neither read from nor
// written to the prompt cache; the cache counts come apart.
type claudeUsage struct {
	InputTokens         int64 `json:"input_tokens"`
	CacheReadTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationTokens int64 `json:"cache_creation_input_tokens"`
	OutputTokens        int64 `json:"output_tokens"`
}

// claudeModelUsage is one model's entry in a result's
// model_usage_since_last_result.
type claudeModelUsage struct {
	InputTokens         int64   `json:"inputTokens"`
	CacheReadTokens     int64   `json:"cacheReadInputTokens"`
	CacheCreationTokens int64   `json:"cacheCreationInputTokens"`
	OutputTokens        int64   `json:"outputTokens"`
	CostUSD             float64 `json:"costUSD"`
}

// claudeUsageOf is the Usage of a result line; the input tokens include
// the cache reads and writes, which are also kept apart.
//
// What the figures count depends on the version. Claude Code 2.1.3xx
// reports model_usage_since_last_result: exactly what this result adds,
// while its total_cost_usd is the whole session's (after --resume, the
// earlier processes' cost included). Earlier versions report only usage
// and total_cost_usd, the process's own running totals (a resumed
// session's process starts again near zero). Either way the consumer
// can add up what it is given, per process.
func claudeUsageOf(l *claudeLine) *Usage {
	u := &Usage{DurationMS: l.Duration, Turns: l.NumTurns}
	if len(l.SinceLast) > 0 {
		for _, m := range l.SinceLast {
			u.InputTokens += m.InputTokens + m.CacheReadTokens + m.CacheCreationTokens
			u.CacheReadTokens += m.CacheReadTokens
			u.CacheCreationTokens += m.CacheCreationTokens
			u.OutputTokens += m.OutputTokens
			u.CostUSD += m.CostUSD
		}
		return u
	}
	u.Total, u.CostUSD = TotalProcess, l.CostUSD
	if c := l.Usage; c != nil {
		u.InputTokens = c.InputTokens + c.CacheReadTokens + c.CacheCreationTokens
		u.CacheReadTokens, u.CacheCreationTokens = c.CacheReadTokens, c.CacheCreationTokens
		u.OutputTokens = c.OutputTokens
	}
	return u
}

// claudeToolMeta is an entry of a user line's tool_result_meta (Claude
// Code 2.1.3xx): how the permission check of a tool call went.
type claudeToolMeta struct {
	ID               string `json:"id"`
	NonExecutionKind string `json:"non_execution_kind"`
	Decision         *struct {
		Decision string `json:"decision"`
	} `json:"permission_decision"`
}

// rejected reports whether the entry says the call was refused, not run.
func (m *claudeToolMeta) rejected() bool {
	return m.NonExecutionKind != "" || (m.Decision != nil && m.Decision.Decision == "reject")
}

// claudeToolResult is the event of one tool_result block: its output's
// end, the Bash tool's exit code ("Exit code N" heads a failed command's
// output) and whether it is a permission denial rather than a failure:
// tool_result_meta says so where the version reports it, else the
// denial's own words.
func claudeToolResult(name string, b *claudeBlock, meta []claudeToolMeta) Event {
	out := b.Content.text()
	ev := Event{Type: EventToolResult, Tool: name, ID: b.ToolUseID, Failed: b.IsError,
		Text: OneLine(out, maxDetail), Output: toolOutputTail(out)}
	if !b.IsError {
		return ev
	}
	if rest, ok := strings.CutPrefix(out, "Exit code "); ok {
		n := rest
		if i := strings.IndexAny(rest, " \r\n"); i >= 0 {
			n = rest[:i]
		}
		if _, err := strconv.Atoi(n); err == nil {
			ev.Code = "exit " + n
		}
	}
	for i := range meta {
		if meta[i].ID == b.ToolUseID {
			ev.Denied = meta[i].rejected()
			return ev
		}
	}
	ev.Denied = claudeRefusal(out)
	return ev
}

// claudeRefusal reports whether a tool_result error is Claude Code's
// refusal to run the tool: "Claude requested permissions to write to …,
// but you haven't granted it yet." (print mode never asks), or a deny
// rule's "Permission to use Bash has been denied by your rule …", or a
// compound command's "The following parts require approval: …".
func claudeRefusal(out string) bool {
	return strings.Contains(out, "requested permissions to") && strings.Contains(out, "granted") ||
		strings.HasPrefix(out, "Permission to use ") && strings.Contains(out, "denied") ||
		strings.Contains(out, "require approval:")
}

// MaxToolOutput bounds Event.Output: test outcomes ("FAIL\tpkg", "ok
// pkg") sit at the end of a command's output, and the artifact file keeps
// the whole of it.
const MaxToolOutput = 4096

// toolOutputTail keeps the last MaxToolOutput bytes of out, from a line
// start.
func toolOutputTail(out string) string {
	if len(out) <= MaxToolOutput {
		return out
	}
	out = out[len(out)-MaxToolOutput:]
	if i := strings.IndexByte(out, '\n'); i >= 0 {
		return out[i+1:]
	}
	return out
}
