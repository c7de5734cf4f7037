package relay

import (
	"strings"
	"testing"
)

// TestLongStructuredOutputKeepsItsLine: a structured line over the line
// cap goes as the controller's wording, cut, without its parts, instead
// of being refused as too large.
func TestLongStructuredOutputKeepsItsLine(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newFakeHandler(), ServerConfig{MaxLine: testMaxLine})
	c := dialTest(t, ts.path, fastClient(ts.path))
	if _, err := c.Observe(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("m", testMaxLine)
	out := &OutputLine{Line: "message · " + long, Parts: []OutputPart{{Type: "message", Detail: long}}}
	if err := ts.Notify(Notice{Kind: NoticeWorkerOutput, Output: out}); err != nil {
		t.Fatal(err)
	}
	n := nextOutput(t, c)
	if !n.Output.Truncated || n.Output.Parts != nil || !strings.HasPrefix(out.Line, n.Output.Line) || n.Output.Line == "" {
		t.Fatalf("got %+v, want a cut line without parts", n.Output)
	}
}
