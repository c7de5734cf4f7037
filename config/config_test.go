package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/i18n"
)

func TestDefaultConfigIsValid(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatalf("Validate(DefaultConfig()): %v", err)
	}
	h := c.Heartbeat
	if h.CheckInterval.Std() != 2*time.Second || h.WarningAfter.Std() != 20*time.Second || h.StaleAfter.Std() != 45*time.Second {
		t.Errorf("heartbeat: got %v/%v/%v, want 2s/20s/45s", h.CheckInterval, h.WarningAfter, h.StaleAfter)
	}
	if c.Restart.MaxRestarts != 5 || c.Restart.Window.Std() != 10*time.Minute {
		t.Errorf("restart: got %d within %v, want 5 within 10m", c.Restart.MaxRestarts, c.Restart.Window)
	}
	if c.Controller.IdleExit.Std() != time.Minute {
		t.Errorf("idle_exit: got %v, want 1m", c.Controller.IdleExit)
	}
	if got := c.ConcurrencyLimits(); got[DefaultLane] != 1 || len(got) != 1 {
		t.Errorf("ConcurrencyLimits: got %v, want {worker: 1}", got)
	}
}

// TestValidateBoundaries checks each cross-field rule right at its edge:
// equal values pass, one step over fails with the rule's code.
func TestValidateBoundaries(t *testing.T) {
	s := func(n int) Duration { return Duration(time.Duration(n) * time.Second) }
	tests := []struct {
		name   string
		change func(c *Config)
		want   Code // "" means valid
		key    string
	}{
		{"all heartbeat thresholds equal", func(c *Config) {
			c.Heartbeat = Heartbeat{s(5), s(5), s(5)}
		}, "", ""},
		{"warning below check", func(c *Config) { c.Heartbeat.WarningAfter = s(1) }, CodeOrder, "heartbeat.warning_after"},
		{"stale below warning", func(c *Config) { c.Heartbeat.StaleAfter = s(19) }, CodeOrder, "heartbeat.stale_after"},
		{"check interval zero", func(c *Config) {
			c.Heartbeat.CheckInterval = 0
		}, CodeTooSmall, "heartbeat.check_interval"},
		{"ttl exactly three checks", func(c *Config) { c.Lease.TTL = s(6) }, "", ""},
		{"ttl under three checks", func(c *Config) { c.Lease.TTL = Duration(6*time.Second - time.Millisecond) }, CodeOrder, "lease.ttl"},
		{"ttl zero", func(c *Config) { c.Lease.TTL = 0 }, CodeTooSmall, "lease.ttl"},
		{"idle exit never", func(c *Config) { c.Controller.IdleExit = 0 }, "", ""},
		{"no restarts needs no window", func(c *Config) { c.Restart.MaxRestarts, c.Restart.Window = 0, 0 }, "", ""},
		{"restarts need a window", func(c *Config) { c.Restart.Window = 0 }, CodeTooSmall, "restart.window"},
		{"cap equal to base", func(c *Config) { c.Restart.BackoffCap = c.Restart.BackoffBase }, "", ""},
		{"concurrency 64", func(c *Config) { c.Lanes[0].Concurrency = 64 }, "", ""},
		{"concurrency 65", func(c *Config) { c.Lanes[0].Concurrency = 65 }, CodeTooLarge, "lanes[0].concurrency"},
		{"sim command without instruction", func(c *Config) {
			c.Lanes[0].Command = []string{"{daokit}", "worker", "sim"}
		}, CodeNoInstruction, "lanes[0].command"},
		{"command via stdin", func(c *Config) {
			c.Lanes[0].Kind, c.Lanes[0].Command, c.Lanes[0].Stdin = KindCommand, []string{"cat"}, true
		}, "", ""},
		{"command lane without command", func(c *Config) { c.Lanes[0].Kind = KindCommand }, CodeRequired, "lanes[0].command"},
		{"empty program name", func(c *Config) { c.Lanes[0].Command = []string{"", "{instruction}"} }, CodeRequired, "lanes[0].command[0]"},
		{"name dot dot", func(c *Config) { c.Lanes[0].Name = ".." }, CodeName, "lanes[0].name"},
		{"lane climbing out", func(c *Config) { c.Lanes[0].Name = "../x" }, CodeName, "lanes[0].name"},
		{"hidden lane", func(c *Config) { c.Lanes[0].Name = ".x" }, CodeName, "lanes[0].name"},
		{"option-like lane", func(c *Config) { c.Lanes[0].Name = "-x" }, CodeName, "lanes[0].name"},
		{"step climbing out", func(c *Config) { c.Workflow.Steps[0].ID = "../../S1" }, CodeName, "workflow.steps[0].id"},
		{"no steps", func(c *Config) { c.Workflow.Steps = nil }, CodeRequired, "workflow.steps"},
		{"env with NUL", func(c *Config) { c.Lanes[0].Env = Env{"A=b\x00c"} }, CodeEnv, "lanes[0].env[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			tt.change(&c)
			err := c.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate: got %v, want nil", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Validate: got %v, want %s at %s", err, tt.want, tt.key)
			}
			if e.Code != tt.want || e.Key != tt.key {
				t.Errorf("Validate: got %s at %s, want %s at %s", e.Code, e.Key, tt.want, tt.key)
			}
		})
	}
}

func TestDurationText(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"45s", 45 * time.Second, false},
		{"2m", 2 * time.Minute, false},
		{"1h30m", 90 * time.Minute, false},
		{"500ms", 500 * time.Millisecond, false},
		{" 3s ", 3 * time.Second, false},
		{"0", 0, false},
		{"-1s", -time.Second, false},
		{"30", 0, true},
		{"5 minutes", 0, true},
		{"", 0, true},
	}
	for _, tt := range tests {
		var d Duration
		err := d.UnmarshalText([]byte(tt.in))
		var de *DurationError
		if tt.wantErr != errors.As(err, &de) {
			t.Errorf("UnmarshalText(%q): got error %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if !tt.wantErr && d.Std() != tt.want {
			t.Errorf("UnmarshalText(%q): got %v, want %v", tt.in, d.Std(), tt.want)
		}
	}
}

func TestDurationString(t *testing.T) {
	tests := []struct {
		in   time.Duration
		want string
	}{
		{0, "0s"}, {2 * time.Minute, "2m"}, {time.Hour, "1h"}, {90 * time.Minute, "1h30m"},
		{45 * time.Second, "45s"}, {90 * time.Second, "1m30s"}, {500 * time.Millisecond, "500ms"},
	}
	for _, tt := range tests {
		got := Duration(tt.in).String()
		if got != tt.want {
			t.Errorf("Duration(%v).String(): got %q, want %q", tt.in, got, tt.want)
		}
		var back Duration
		text, _ := Duration(tt.in).MarshalText()
		if err := back.UnmarshalText(text); err != nil || back.Std() != tt.in {
			t.Errorf("round trip of %v: got %v, %v", tt.in, back.Std(), err)
		}
	}
}

func TestEnvLookup(t *testing.T) {
	e := Env{"A=1", "B=x=y", "A=2"}
	if v, ok := e.Lookup("A"); !ok || v != "2" {
		t.Errorf("Lookup(A): got %q %v, want the later entry %q", v, ok, "2")
	}
	if v, ok := e.Lookup("B"); !ok || v != "x=y" {
		t.Errorf("Lookup(B): got %q %v, want %q", v, ok, "x=y")
	}
	if _, ok := e.Lookup("C"); ok {
		t.Errorf("Lookup(C): got found, want not found")
	}
}

func TestExpand(t *testing.T) {
	v := Vars{Instruction: "fix the bug; rm -rf /", Daokit: "/bin/daokit", Lang: "zh-CN", Root: "/r",
		TaskID: "T1", RunID: "R1", StepID: "S1", Session: "sess"}
	got := Expand([]string{"{daokit}", "--lang={lang}", "{instruction}", "${HOME}", "{unknown}", "{root}/{task_id}/{run_id}/{step_id}", "{session}"}, v)
	want := []string{"/bin/daokit", "--lang=zh-CN", "fix the bug; rm -rf /", "${HOME}", "{unknown}", "/r/T1/R1/S1", "sess"}
	if !slices.Equal(got, want) {
		t.Errorf("Expand: got %q, want %q", got, want)
	}
}

func TestLaneArgv(t *testing.T) {
	v := Vars{Instruction: "-do it", Daokit: "/bin/daokit", Lang: "en"}
	tests := []struct {
		lane Lane
		want []string
	}{
		{Lane{Kind: KindSim}, []string{"/bin/daokit", "worker", "sim", "--lang", "en", "--", "-do it"}},
		{Lane{Kind: KindClaude}, []string{"claude", "-p", "--output-format", "stream-json", "--verbose",
			"--permission-mode", "acceptEdits", "--allowedTools", "Bash", "--", "-do it"}},
		{Lane{Kind: KindCodex}, []string{"codex", "exec", "--json", "--sandbox", "workspace-write", "--", "-do it"}},
		{Lane{Kind: KindCommand, Command: []string{"my-agent", "--prompt", "{instruction}"}}, []string{"my-agent", "--prompt", "-do it"}},
	}
	for _, tt := range tests {
		if got := tt.lane.Argv(v); !slices.Equal(got, tt.want) {
			t.Errorf("%s Argv: got %q, want %q", tt.lane.Kind, got, tt.want)
		}
	}
	// A lane of its own command has no resume_command unless it says so;
	// a default agent lane resumes with the same permissions and "--".
	own := Lane{Kind: KindClaude, Command: []string{"claude", "-p", "{instruction}"}}
	if got := own.ResumeArgv(Vars{Session: "s"}); got != nil || own.CanResume() {
		t.Errorf("ResumeArgv of a lane's own command without resume_command: got %q, want nil", got)
	}
	resumes := map[Kind][]string{
		KindClaude: {"claude", "-p", "--resume", "s", "--output-format", "stream-json", "--verbose",
			"--permission-mode", "acceptEdits", "--allowedTools", "Bash", "--", "-do it"},
		KindCodex: {"codex", "exec", "resume", "--json", "-c", `sandbox_mode="workspace-write"`, "--", "s", "-do it"},
	}
	for k, want := range resumes {
		l := Lane{Kind: k}
		if got := l.ResumeArgv(Vars{Session: "s", Instruction: "-do it"}); !slices.Equal(got, want) || !l.CanResume() {
			t.Errorf("%s default ResumeArgv: got %q, want %q", k, got, want)
		}
	}
	if (Lane{Kind: KindSim}).CanResume() {
		t.Error("the simulated agent has no session to resume")
	}
}

func TestOutsideGit(t *testing.T) {
	codex := DefaultCommand(KindCodex)
	want := []string{"codex", "exec", "--json", "--sandbox", "workspace-write", CodexSkipGitRepoCheck, "--", PlaceholderInstruction}
	if got := OutsideGit(KindCodex, codex); !slices.Equal(got, want) {
		t.Errorf("codex outside git: got %q, want %q", got, want)
	}
	if !slices.Equal(codex, DefaultCommand(KindCodex)) {
		t.Error("OutsideGit changed its argument")
	}
	resume := OutsideGit(KindCodex, DefaultResumeCommand(KindCodex))
	if i := slices.Index(resume, CodexSkipGitRepoCheck); i < 0 || resume[i+1] != "--" {
		t.Errorf("codex resume outside git: %q", resume)
	}
	claude := DefaultCommand(KindClaude)
	if got := OutsideGit(KindClaude, claude); !slices.Equal(got, claude) {
		t.Errorf("claude needs nothing outside git: got %q", got)
	}
}

func TestNormalizeHookPoint(t *testing.T) {
	for in, want := range map[string]string{"PRE_COMPACT": "pre-compact", " session-start ": "session-start", "Post_Accept": "post-accept"} {
		if got, ok := NormalizeHookPoint(in); !ok || got != want {
			t.Errorf("NormalizeHookPoint(%q): got %q %v, want %q true", in, got, ok, want)
		}
	}
	if _, ok := NormalizeHookPoint("post-merge"); ok {
		t.Errorf("NormalizeHookPoint(post-merge): got known, want unknown")
	}
}

func TestErrorsAreLocalized(t *testing.T) {
	zh, err := i18n.New(i18n.Chinese)
	if err != nil {
		t.Fatal(err)
	}
	_, perr := Parse([]byte("[heartbeat]\nstale_after = \"10s\"\n[[lanes]]\nname = \"w\"\nstdin = \"yes\"\n"), "daokit.toml", "/r")
	es := AsErrors(perr)
	if len(es) != 2 {
		t.Fatalf("got %d problems (%v), want 2 (stale_after below warning_after, stdin not a boolean)", len(es), perr)
	}
	got := es.Localize(zh)
	for _, want := range []string{"daokit.toml", "lanes[0].stdin", `"yes"`, "布尔值"} {
		if !strings.Contains(got, want) {
			t.Errorf("Chinese message %q lacks %q", got, want)
		}
	}
	if en := es[1].Error(); !strings.Contains(en, "expected true or false") {
		t.Errorf("English message: got %q", en)
	}
	// Every code has a message in both languages (the catalog test checks
	// parity; this checks the ids the code builds).
	en := i18n.MustNew(i18n.English)
	for _, code := range allCodes() {
		id := "config.error." + string(code)
		if en.T(id) == id || zh.T(id) == id {
			t.Errorf("code %s has no message %s", code, id)
		}
	}
}

func allCodes() []Code {
	return []Code{CodeRead, CodeSyntax, CodeUnknownKey, CodeType, CodeDuration, CodeRequired, CodeTooSmall,
		CodeTooLarge, CodeOrder, CodeEnum, CodeDuplicate, CodeUnknownLane, CodeNoInstruction, CodeNoSession,
		CodeEnv, CodeName, CodeCallbackCommand, CodeHubName}
}

// TestWindowSection: the [window] keys load over their defaults, and a
// notify command with an unknown placeholder or no program is refused.
func TestWindowSection(t *testing.T) {
	c, err := Parse([]byte("[window]\nbell = false\nnotify = [\"notify-send\", \"{message}\", \"{task}\"]\nlong_run = \"0\"\ndesktop = false\n"), "daokit.toml", "/r")
	if err != nil {
		t.Fatal(err)
	}
	if c.Window.Bell || !c.Window.Title || len(c.Window.Notify) != 3 || c.Window.LongRun != 0 || c.Window.Desktop {
		t.Errorf("window %+v", c.Window)
	}
	if d := DefaultConfig().Window; !d.Bell || !d.Title || !d.Desktop || d.Notify != nil || d.LongRun.Std() != DefaultLongRun {
		t.Errorf("default window %+v", d)
	}
	for _, bad := range []string{`notify = ["notify-send", "{mesage}"]`, `notify = [""]`, `long_run = "-1s"`} {
		if _, err := Parse([]byte("[window]\n"+bad+"\n"), "daokit.toml", "/r"); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// TestCommitAuthor: [worktrees] commit_author takes a git identity
// "Name <email>" and refuses anything else, naming the key.
func TestCommitAuthor(t *testing.T) {
	c, err := Parse([]byte("[worktrees]\ncommit_author = \"Review Bot <bot@example.com>\"\n"), "daokit.toml", "/r")
	if err != nil || c.Worktrees.CommitAuthor != "Review Bot <bot@example.com>" {
		t.Fatalf("commit_author: %q, %v", c.Worktrees.CommitAuthor, err)
	}
	if DefaultConfig().Worktrees.CommitAuthor != "" {
		t.Error("a default author; want the repository's identity")
	}
	for _, bad := range []string{"bot@example.com", "Review Bot", "Bot <a@b> <c@d>"} {
		_, err := Parse([]byte("[worktrees]\ncommit_author = \""+bad+"\"\n"), "daokit.toml", "/r")
		if err == nil || !strings.Contains(err.Error(), "worktrees.commit_author") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
