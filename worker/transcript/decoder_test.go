package transcript

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// describe renders an event compactly for comparisons.
func describe(ev Event) string {
	var b strings.Builder
	b.WriteString(string(ev.Type))
	if ev.Tool != "" {
		b.WriteString(" tool=" + ev.Tool)
	}
	if ev.ID != "" {
		b.WriteString(" id=" + ev.ID)
	}
	if ev.Text != "" {
		b.WriteString(" text=" + strconv.Quote(ev.Text))
	}
	if ev.Failed {
		b.WriteString(" failed")
	}
	if ev.Denied {
		b.WriteString(" denied")
	}
	if ev.Code != "" {
		b.WriteString(" code=" + ev.Code)
	}
	if u := ev.Usage; u != nil {
		fmt.Fprintf(&b, " usage=%d/%d/%g/%d/%d", u.InputTokens, u.OutputTokens, u.CostUSD, u.DurationMS, u.Turns)
		if u.Total != TotalNone {
			fmt.Fprintf(&b, " total=%d", u.Total)
		}
		if u.CacheReadTokens != 0 || u.CacheCreationTokens != 0 {
			fmt.Fprintf(&b, " cache=%d/%d", u.CacheReadTokens, u.CacheCreationTokens)
		}
	}
	return b.String()
}

type decodedFile struct {
	events             []string
	unknown, malformed int
}

func decodeFile(t *testing.T, kind, name string) decodedFile {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := NewDecoder(kind)
	var out decodedFile
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		got := d.Decode(Stdout, sc.Bytes())
		switch got.Status {
		case StatusUnknown:
			out.unknown++
		case StatusMalformed:
			out.malformed++
		}
		if (got.Status == StatusEvent) != (len(got.Events) > 0) {
			t.Errorf("line %q: status %s with %d events", sc.Text(), got.Status, len(got.Events))
		}
		for _, ev := range got.Events {
			out.events = append(out.events, describe(ev))
		}
	}
	return out
}

func TestAgentStreams(t *testing.T) {
	const claudeOK = "9f0c2d3e-1b2a-4c5d-8e6f-7a8b9c0d1e2f"
	const claudeErr = "1111aaaa-2222-bbbb-3333-cccc4444dddd"
	tests := []struct {
		kind, file         string
		want               []string
		unknown, malformed int
	}{
		{"claude", "claude-stream-json-success.jsonl", []string{
			"session id=" + claudeOK,
			"heartbeat",
			`message text="I'll look at the status command first."`,
			`tool tool=Read id=toolu_01 text="/home/dev/project/cmd/status.go"`,
			`tool_result tool=Read id=toolu_01 text="1\tpackage main"`,
			`tool tool=Edit id=toolu_02 text="/home/dev/project/cmd/status.go"`,
			`tool tool=Bash id=toolu_03 text="go test ./..."`,
			`tool_result tool=Edit id=toolu_02 text="The file has been updated."`,
			`tool_result tool=Bash id=toolu_03 text="ok  \texample.com/project/cmd\t0.41s"`,
			"heartbeat",
			`message text="Added --json to status; tests pass."`,
			`result text="Added --json to status; tests pass." usage=7168/733/0.0831/48211/4 total=1 cache=2048/0`,
		}, 0, 0},
		{"claude", "claude-stream-json-error.jsonl", []string{
			"session id=" + claudeErr,
			"heartbeat",
			`tool tool=Bash id=toolu_10 text="make lint"`,
			`tool_result tool=Bash id=toolu_10 text="lint: 3 problems" failed`,
			"heartbeat",
			`result text="Reached maximum number of turns (10)" failed code=error_max_turns usage=0/0/0.5/90000/10 total=1`,
		}, 2, 4},
		{"codex", "codex-exec-json-success.jsonl", []string{
			"session id=0199a213-81c0-7800-8aa1-bbab2a035a53",
			"heartbeat",
			`progress text="Looking for the status command"`,
			`tool tool=shell id=item_1 text="bash -lc 'rg -n status cmd'"`,
			`tool_result tool=shell id=item_1 text="bash -lc 'rg -n status cmd'"`,
			`progress text="todo 0/2"`,
			`progress text="todo 1/2"`,
			`tool tool=file_change id=item_3 text="cmd/status.go"`,
			`tool tool=file_change id=item_3 text="cmd/status_test.go"`,
			`tool_result tool=file_change id=item_3 text="update cmd/status.go, add cmd/status_test.go"`,
			`tool tool=github.search_issues id=item_4`,
			`tool_result tool=github.search_issues id=item_4`,
			`message text="Added --json to status and a test."`,
			`result text="Added --json to status and a test." usage=24763/122/0/0/0 total=2 cache=24448/0`,
		}, 0, 0},
		{"codex", "codex-exec-json-failed.jsonl", []string{
			"session id=0199b000-0000-7000-8000-000000000001",
			"heartbeat",
			`tool tool=shell id=item_0 text="go build ./..."`,
			`tool_result tool=shell id=item_0 text="go build ./..." failed code=exit 1`,
			`message text="The build fails; retrying."`,
			`error text="command timed out"`,
			`error text="stream disconnected before completion"`,
			`error text="stream disconnected before completion"`,
			`result text="stream disconnected before completion" failed`,
		}, 2, 3},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got := decodeFile(t, tt.kind, tt.file)
			for i := range max(len(got.events), len(tt.want)) {
				g, w := "(none)", "(none)"
				if i < len(got.events) {
					g = got.events[i]
				}
				if i < len(tt.want) {
					w = tt.want[i]
				}
				if g != w {
					t.Errorf("event %d:\n got %s\nwant %s", i, g, w)
				}
			}
			if got.unknown != tt.unknown || got.malformed != tt.malformed {
				t.Errorf("unknown/malformed lines: got %d/%d, want %d/%d", got.unknown, got.malformed, tt.unknown, tt.malformed)
			}
		})
	}
}

func TestAgentDecodersLeaveStderrPlain(t *testing.T) {
	for _, kind := range []string{"claude", "codex"} {
		if got := NewDecoder(kind).Decode(Stderr, []byte(`{"type":"result"}`)); got.Status != StatusPlain {
			t.Errorf("%s stderr: got %s, want plain", kind, got.Status)
		}
	}
}

func TestProtocolDecoder(t *testing.T) {
	tests := []struct {
		line   string
		status Status
		want   string
	}{
		{`plain output`, StatusPlain, ""},
		{`  @daokit {"type":"heartbeat"}`, StatusPlain, ""},
		{`@daokit{"type":"heartbeat"}`, StatusPlain, ""},
		{`@daokit {"type":"heartbeat"}`, StatusEvent, "heartbeat"},
		{`@daokit {"v":1,"type":"progress","message":"Reading a.go","extra":true}`, StatusEvent, `progress text="Reading a.go"`},
		{`@daokit {"type":"message","text":"hi"}`, StatusEvent, `message text="hi"`},
		{`@daokit {"type":"tool","name":"edit","detail":"a.go","id":"t1"}`, StatusEvent, `tool tool=edit id=t1 text="a.go"`},
		{`@daokit {"type":"tool_result","name":"go test","ok":false,"detail":"2 failed"}`, StatusEvent, `tool_result tool=go test text="2 failed" failed`},
		{`@daokit {"type":"session","id":"abc"}`, StatusEvent, "session id=abc"},
		{`@daokit {"type":"result","summary":"done"}`, StatusEvent, `result text="done"`},
		{`@daokit {"type":"result","summary":"no","ok":false,"code":"E1","usage":{"cost_usd":0.5,"turns":2}}`, StatusEvent, `result text="no" failed code=E1 usage=0/0/0.5/0/2`},
		{`@daokit {"type":"error","message":"boom","code":"X"}`, StatusEvent, `error text="boom" code=X`},
		{`@daokit {"v":2,"type":"telepathy"}`, StatusUnknown, ""},
		{`@daokit {"type":"session"}`, StatusMalformed, ""},
		{`@daokit {"type":"progress","message":"  "}`, StatusMalformed, ""},
		{`@daokit {"message":"no type"}`, StatusMalformed, ""},
		{`@daokit ["not","an","object"]`, StatusMalformed, ""},
		{`@daokit {"type":"progress"`, StatusMalformed, ""},
		{`@daokit {"type":1}`, StatusMalformed, ""},
	}
	for _, tt := range tests {
		got := ProtocolDecoder{}.Decode(Stdout, []byte(tt.line))
		var desc []string
		for _, ev := range got.Events {
			desc = append(desc, describe(ev))
		}
		if got.Status != tt.status || strings.Join(desc, ";") != tt.want {
			t.Errorf("Decode(%q): got %s %q, want %s %q", tt.line, got.Status, desc, tt.status, tt.want)
		}
	}
}

// TestFormatLineRoundTrip: every event the protocol can say survives
// FormatLine then Decode.
func TestFormatLineRoundTrip(t *testing.T) {
	events := []Event{
		{Type: EventHeartbeat},
		{Type: EventProgress, Text: "正在阅读 <a&b>.go"},
		{Type: EventMessage, Text: "line one\nline two"},
		{Type: EventTool, Tool: "edit", Text: "a.go", ID: "t1"},
		{Type: EventToolResult, Tool: "edit", ID: "t1", Failed: true},
		{Type: EventSession, ID: "s-1"},
		{Type: EventResult, Text: "ok", Usage: &Usage{InputTokens: 1, OutputTokens: 2, CostUSD: 0.25, DurationMS: 3, Turns: 4}},
		{Type: EventResult, Text: "no", Failed: true, Code: "E"},
		{Type: EventError, Text: "boom", Code: "X"},
	}
	for _, ev := range events {
		line := FormatLine(ev)
		if strings.ContainsAny(line, "\n") || !strings.HasPrefix(line, ProtocolPrefix) {
			t.Errorf("FormatLine(%s): got %q, want one prefixed line", describe(ev), line)
		}
		got := ProtocolDecoder{}.Decode(Stdout, []byte(line))
		if got.Status != StatusEvent || len(got.Events) != 1 || describe(got.Events[0]) != describe(ev) {
			t.Errorf("round trip of %s: got %s %v", describe(ev), got.Status, got.Events)
		}
	}
	if got, want := FormatLine(Event{Type: EventProgress, Text: "<&>"}), ProtocolPrefix+`{"type":"progress","message":"<&>"}`; got != want {
		t.Errorf("FormatLine: got %s, want %s (no HTML escaping)", got, want)
	}
}

func TestTextHelpers(t *testing.T) {
	if got := OneLine("  first line \nsecond", 100); got != "first line" {
		t.Errorf("oneLine: got %q", got)
	}
	if got := cutRunes("一二三四五", 3); got != "一二…" {
		t.Errorf("cutRunes: got %q, want %q", got, "一二…")
	}
}
