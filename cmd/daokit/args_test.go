package main

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/daokit/daokit/i18n"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// parsed is what the command line said: which command, the flags given
// (name=value) and the positional arguments.
type parsed struct {
	cmd   string
	flags string
	args  string
}

// parseOnly runs the real command tree on args with every command's run
// replaced by a recorder, so that only parsing is exercised.
func parseOnly(t *testing.T, args ...string) (parsed, int) {
	t.Helper()
	a := &app{ctx: context.Background(), io: stdio{in: strings.NewReader(""), out: io.Discard, err: io.Discard},
		loc: i18n.MustNew(i18n.English), getenv: func(string) string { return "" }}
	root := a.newRootCmd()
	var got parsed
	walkCommands(root, func(c *cobra.Command) {
		if c.Runnable() {
			c.Run, c.RunE = nil, func(c *cobra.Command, args []string) error {
				var fl []string
				c.Flags().Visit(func(f *pflag.Flag) { fl = append(fl, f.Name+"="+f.Value.String()) })
				slices.Sort(fl)
				got = parsed{cmd: commandName(c), flags: strings.Join(fl, " "), args: strings.Join(args, "|")}
				return nil
			}
		}
	})
	root.SetArgs(expandPrefixes(root, args))
	return got, a.finish(root.ExecuteContext(a.ctx))
}

func walkCommands(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, sub := range c.Commands() {
		walkCommands(sub, f)
	}
}

// argOrders lists, for every command, command lines that must all parse
// the same: flags before, after and between positionals, "=" forms, and
// "--" ending the flags. Before the command name only the flags of the
// bare daokit (--root, --lang, …) are known, as with git or kubectl.
var argOrders = []struct {
	want  parsed
	lines [][]string
}{
	{parsed{"daokit", "no-start=true root=/r", ""}, [][]string{
		{"--root", "/r", "--no-start"}, {"--no-start", "--root=/r"},
	}},
	{parsed{"ui", "log=/l root=/r", ""}, [][]string{
		{"ui", "--root", "/r", "--log", "/l"}, {"--root", "/r", "ui", "--log=/l"}, {"ui", "--log=/l", "--root=/r"},
	}},
	{parsed{"watch", "lang=zh-CN root=/r", ""}, [][]string{
		{"watch", "--root", "/r", "--lang", "zh-CN"}, {"--lang=zh-CN", "watch", "--root=/r"},
	}},
	{parsed{"init", "root=/r", ""}, [][]string{{"init", "--root", "/r"}, {"--root", "/r", "init"}, {"init", "--root=/r"}}},
	{parsed{"check", "json=true root=/r stale-after=60", ""}, [][]string{
		{"check", "--root", "/r", "--json", "--stale-after", "60"}, {"check", "--stale-after=60", "--json", "--root=/r"},
		{"--root", "/r", "check", "--json", "--stale-after", "60"},
	}},
	{parsed{"run", "goal=Write docs root=/r task-id=T", ""}, [][]string{
		{"run", "--task", "T", "--go", "Write docs", "--root", "/r"},
		{"run", "--task-id", "T", "--goal", "Write docs", "--root", "/r"}, {"run", "--goal=Write docs", "--root=/r", "--task-id=T"},
	}},
	{parsed{"status", "json=true root=/r task-id=T", ""}, [][]string{
		{"status", "--root", "/r", "--json", "--task-id", "T"}, {"status", "--task-id=T", "--root=/r", "--json"},
		{"--root", "/r", "status", "--json", "--task-id", "T"},
	}},
	{parsed{"replay", "json=true limit=3 root=/r source=snapshots", ""}, [][]string{
		{"replay", "--root", "/r", "--source", "snapshots", "--limit", "3", "--json"},
		{"replay", "--json", "--limit=3", "--source=snapshots", "--root=/r"},
		// Unique prefixes, as argparse accepts them.
		{"replay", "--js", "--lim=3", "--so", "snapshots", "--ro", "/r"},
	}},
	{parsed{"takeover", "root=/r successor-pid=42 successor-thread-id=t", ""}, [][]string{
		{"takeover", "--root", "/r", "--successor-pid", "42", "--successor-thread-id", "t"},
		{"takeover", "--successor-thread-id=t", "--successor-pid=42", "--root=/r"},
	}},
	{parsed{"handoff", "apply=true evidence-path=[a,b] root=/r", ""}, [][]string{
		{"handoff", "--root", "/r", "--apply", "--evidence-path", "a", "--evidence-path", "b"},
		{"handoff", "--evidence-path=a", "--apply", "--evidence-path=b", "--root=/r"},
	}},
	{parsed{"bundle", "bundle-root=b json=true reverify=true root=/r", ""}, [][]string{
		{"bundle", "--root", "/r", "--reverify", "--bundle-root", "b", "--json"},
		{"bundle", "--json", "--bundle-root=b", "--reverify", "--root=/r"},
		{"--root", "/r", "bundle", "--reve", "--bun", "b", "--js"},
	}},
	{parsed{"dashboard", "port=0 read-only=true root=/r", ""}, [][]string{
		{"dashboard", "--root", "/r", "--port", "0", "--read-only"},
		{"dashboard", "--read-only", "--port=0", "--root=/r"},
		{"--root", "/r", "dashboard", "--port", "0", "--read-only"},
	}},
	{parsed{"diff", "root=/r stat=true step-id=S1 task-id=T", ""}, [][]string{
		{"diff", "--root", "/r", "--task-id", "T", "--step-id", "S1", "--stat"},
		{"--root", "/r", "diff", "--stat", "--step-id=S1", "--task-id=T"},
	}},
	{parsed{"logs", "issue=7 role=be root=/r stderr=true", ""}, [][]string{
		{"logs", "--root", "/r", "--role", "be", "--issue", "7", "--stderr"},
		{"--root=/r", "logs", "--stderr", "--issue=7", "--role=be"},
	}},
	{parsed{"worktrees", "force=true prune=true root=/r", ""}, [][]string{
		{"worktrees", "--root", "/r", "--prune", "--force"}, {"--root=/r", "worktrees", "--force", "--prune"},
	}},
	{parsed{"send", "root=/r wait=true", "Write|docs"}, [][]string{
		{"send", "Write", "docs", "--wait", "--root", "/r"},
		{"send", "--wait", "Write", "--root=/r", "docs"},
		{"--root", "/r", "send", "Write", "docs", "--wait"},
		{"send", "--root", "/r", "--wait", "--", "Write", "docs"},
	}},
	{parsed{"send", "root=/r", "--wait|--no-start"}, [][]string{
		{"send", "--root", "/r", "--", "--wait", "--no-start"}, {"send", "--root=/r", "--", "--wait", "--no-start"},
	}},
	{parsed{"controller", "idle-exit=1s root=/r verbose=true", ""}, [][]string{
		{"controller", "--root", "/r", "--idle-exit", "1s", "--verbose"}, {"controller", "--verbose", "--idle-exit=1s", "--root=/r"},
	}},
	{parsed{"worker", "", "frob"}, [][]string{{"worker", "frob"}}},
	{parsed{"worker sim", "lang=en seed=3", "do|it"}, [][]string{
		{"worker", "sim", "--seed", "3", "--lang", "en", "do", "it"}, {"worker", "sim", "do", "--seed=3", "it", "--lang=en"},
		{"worker", "sim", "--lang", "en", "--seed", "3", "--", "do", "it"}, {"--lang", "en", "worker", "sim", "do", "it", "--seed", "3"},
	}},
	{parsed{"worker sim", "", "--hang"}, [][]string{{"worker", "sim", "--", "--hang"}}},
	{parsed{"compact", "report=true root=/r", "ctx.json"}, [][]string{
		{"compact", "ctx.json", "--report", "--root", "/r"}, {"compact", "--report", "ctx.json", "--root=/r"},
		{"compact", "--root", "/r", "--report", "--", "ctx.json"},
	}},
	{parsed{"completion", "lang=zh-CN", "bash"}, [][]string{
		{"completion", "bash", "--lang", "zh-CN"}, {"completion", "--lang=zh-CN", "bash"},
	}},
	{parsed{"help", "", "status"}, [][]string{{"help", "status"}}},
	{parsed{"outbox", "", "frob"}, [][]string{{"outbox", "frob"}}},
	{parsed{"outbox new", "body=b root=/r to=qa", "Test|login"}, [][]string{
		{"outbox", "new", "--to", "qa", "Test", "login", "--body", "b", "--root", "/r"},
		{"outbox", "new", "Test", "--to=qa", "login", "--body=b", "--root=/r"},
		{"outbox", "new", "--to", "qa", "--body", "b", "--root", "/r", "--", "Test", "login"},
	}},
	{parsed{"outbox comment", "trigger=T", "1|hi"}, [][]string{
		{"outbox", "comment", "1", "--trigger", "T", "hi"}, {"outbox", "comment", "--trigger=T", "1", "hi"},
	}},
	{parsed{"outbox label", "remove=true", "1|x"}, [][]string{{"outbox", "label", "1", "x", "--remove"}}},
	{parsed{"outbox assign", "json=true", "1|ann"}, [][]string{{"outbox", "assign", "1", "--json", "ann"}}},
	{parsed{"outbox close", "as=ann", "1"}, [][]string{{"outbox", "close", "1", "--as", "ann"}, {"outbox", "close", "--as=ann", "1"}}},
	{parsed{"outbox list", "label=to:qa state=all", ""}, [][]string{{"outbox", "list", "--state", "all", "--label", "to:qa"}}},
	{parsed{"lead", "role=qa root=/r", ""}, [][]string{{"lead", "--role", "qa", "--root", "/r"}, {"lead", "--root=/r", "--role=qa"}}},
	{parsed{"lead sim-worker", "issue=3", ""}, [][]string{{"lead", "sim-worker", "--issue", "3"}, {"lead", "sim-worker", "--issue=3"}}},
	{parsed{"lead guard", "ro=[/a,/b]", "sh|-c|x"}, [][]string{{"lead", "guard", "--ro", "/a", "--ro", "/b", "--", "sh", "-c", "x"}}},
	{parsed{"webhook", "listen=:9000 root=/r", ""}, [][]string{{"webhook", "--listen", ":9000", "--root", "/r"}, {"webhook", "--root=/r", "--listen=:9000"}}},
	{parsed{"outbox show", "outbox=/o", "2"}, [][]string{{"outbox", "show", "2", "--outbox", "/o"}, {"outbox", "show", "--outbox=/o", "2"}}},
	{parsed{"hub", "anonymous=true data=/d listen=127.0.0.1:0 monitor=", ""}, [][]string{
		{"hub", "--listen", "127.0.0.1:0", "--data", "/d", "--anonymous", "--monitor", ""},
		{"hub", "--anonymous", "--monitor=", "--data=/d", "--listen=127.0.0.1:0"},
	}},
	{parsed{"hub creds", "data=/d out=/k role=leader root-id=r", ""}, [][]string{
		{"hub", "creds", "--data", "/d", "--root-id", "r", "--role", "leader", "--out", "/k"},
		{"hub", "creds", "--out=/k", "--role=leader", "--root-id=r", "--data=/d"},
	}},
	{parsed{"mirror", "credentials=/k hub=nats://h:4222 root-id=r to=/d", ""}, [][]string{
		{"mirror", "--hub", "nats://h:4222", "--root-id", "r", "--to", "/d", "--credentials", "/k"},
		{"mirror", "--to=/d", "--credentials=/k", "--root-id=r", "--hub=nats://h:4222"},
	}},
	{parsed{"agent", "hub=nats://h:4222 lanes=[a,b] name=n root-id=r", ""}, [][]string{
		{"agent", "--hub", "nats://h:4222", "--name", "n", "--root-id", "r", "--lanes", "a,b"},
		{"agent", "--lanes=a,b", "--root-id=r", "--name=n", "--hub=nats://h:4222"},
	}},
	{parsed{"worker hub", "hub=nats://h root-id=r", ""}, [][]string{
		{"worker", "hub", "--hub", "nats://h", "--root-id", "r"}, {"worker", "hub", "--root-id=r", "--hub=nats://h"},
	}},
	{parsed{"outbox init", "force=true root=/r", ""}, [][]string{{"outbox", "init", "--force", "--root", "/r"}, {"outbox", "init", "--root=/r", "--force"}}},
	{parsed{"outbox export", "dry-run=true repo=acme/app to=github", ""}, [][]string{{"outbox", "export", "--to", "github", "--dry-run", "--repo", "acme/app"}, {"outbox", "export", "--repo=acme/app", "--dry-run", "--to=github"}}},
}

// TestArgumentOrders: every command parses its flags wherever they are,
// in both forms, and "--" ends them. A command missing from argOrders
// fails the test, so that a new command comes with its cases.
func TestArgumentOrders(t *testing.T) {
	t.Parallel()
	covered := map[string]bool{}
	for _, tc := range argOrders {
		covered[tc.want.cmd] = true
		for _, line := range tc.lines {
			got, code := parseOnly(t, line...)
			if code != exitOK || got != tc.want {
				t.Errorf("daokit %q: code %d, parsed %+v; want %+v", line, code, got, tc.want)
			}
		}
	}
	a := &app{loc: i18n.MustNew(i18n.English)}
	walkCommands(a.newRootCmd(), func(c *cobra.Command) {
		if c.Runnable() && !covered[commandName(c)] {
			t.Errorf("command %q has no case in argOrders", commandName(c))
		}
	})
}

// TestUsageErrors: misuse is exit 2 with one line naming the command and
// the argument as it was typed.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"status", "-bogus"}, "daokit status: error: unknown option -bogus (see daokit status --help)\n"},
		{[]string{"status", "--bogus"}, "daokit status: error: unknown option --bogus (see daokit status --help)\n"},
		{[]string{"replay", "--limit"}, "daokit replay: error: option --limit needs a value (see daokit replay --help)\n"},
		{[]string{"replay", "--limit=x"}, "daokit replay: error: invalid value \"x\" for option --limit (see daokit replay --help)\n"},
		{[]string{"status", "extra"}, "daokit status: error: unexpected arguments: extra (see daokit status --help)\n"},
		// The bare daokit (the window) is named once.
		{[]string{"--bogus"}, "daokit: error: unknown option --bogus (see daokit --help)\n"},
		{[]string{"stauts"}, "daokit: unknown command \"stauts\" (see daokit --help)\ndid you mean: status\n"},
		{[]string{"completion"}, "daokit completion: error: name one shell: bash, zsh, fish, powershell (see daokit completion --help)\n"},
		{[]string{"run", "--goal", "g"}, "daokit run: error: --task-id and --goal are required (see daokit run --help)\n"},
		// A prefix of several options says which, as argparse does.
		{[]string{"takeover", "--successor", "x"}, "daokit takeover: error: ambiguous option: --successor could match --successor-pid, --successor-thread-id (see daokit takeover --help)\n"},
		{[]string{"run", "--r", "x"}, "daokit run: error: ambiguous option: --r could match --root, --run-id, --raw (see daokit run --help)\n"},
	} {
		r := runCLI(t, nil, tc.args...)
		if r.code != exitUsage || r.stderr != tc.want || r.stdout != "" {
			t.Errorf("daokit %q: code %d, stdout %q, stderr %q; want code 2, stderr %q", tc.args, r.code, r.stdout, r.stderr, tc.want)
		}
	}
}

// TestHelpShowsEachDefaultOnce: the defaults come from the flag
// definitions, once, in the reader's language, and never as this
// process's own values (takeover's pid).
func TestHelpShowsEachDefaultOnce(t *testing.T) {
	t.Parallel()
	a := &app{loc: i18n.MustNew(i18n.English)}
	for _, lang := range i18n.Supported() {
		walkCommands(a.newRootCmd(), func(c *cobra.Command) {
			args := append(strings.Fields(commandName(c)), "--help", "--lang", lang)
			if !c.HasParent() {
				args = args[1:]
			}
			r := runCLI(t, nil, args...)
			if r.code != exitOK || r.stderr != "" {
				t.Fatalf("%q: code %d stderr %q", args, r.code, r.stderr)
			}
			for _, line := range strings.Split(r.stdout, "\n") {
				if strings.Count(line, "(default") > 1 || strings.Count(line, "默认") > 1 {
					t.Errorf("%q: a default shown twice: %q", args, line)
				}
				if strings.Contains(line, "-1ns") || strings.Contains(line, "cli.") {
					t.Errorf("%q: %q", args, line)
				}
			}
			if lang == i18n.Chinese && strings.Contains(r.stdout, "(default") {
				t.Errorf("%q: English default in the Chinese help:\n%s", args, r.stdout)
			}
		})
	}
	if r := runCLI(t, nil, "takeover", "--help"); strings.Contains(r.stdout, "(default: 1") || !strings.Contains(r.stdout, "--successor-pid") {
		t.Errorf("takeover --help shows a pid as the default:\n%s", r.stdout)
	}
}

// TestCompletionScripts: each shell gets its script; the descriptions
// are translated.
func TestCompletionScripts(t *testing.T) {
	t.Parallel()
	for _, shell := range completionShells {
		r := runCLI(t, nil, "completion", shell)
		if r.code != exitOK || !strings.Contains(r.stdout, "daokit") || len(r.stdout) < 500 {
			t.Errorf("completion %s: code %d, %d bytes, stderr %q", shell, r.code, len(r.stdout), r.stderr)
		}
	}
	r := runCLI(t, nil, cobra.ShellCompRequestCmd, "--lang", "zh-CN", "sta")
	if r.code != exitOK || !strings.Contains(r.stdout, "status\t") || !strings.Contains(r.stdout, "租约") {
		t.Errorf("__complete sta: code %d stdout %q", r.code, r.stdout)
	}
	r = runCLI(t, nil, cobra.ShellCompRequestCmd, "replay", "--li")
	if !strings.Contains(r.stdout, "--limit\t") {
		t.Errorf("__complete replay --li: %q", r.stdout)
	}
	r = runCLI(t, nil, cobra.ShellCompRequestCmd, "replay", "--source", "")
	if !strings.Contains(r.stdout, "events\nsnapshots\n") {
		t.Errorf("__complete replay --source: %q", r.stdout)
	}
	for _, typed := range []string{"", "z"} {
		r = runCLI(t, nil, cobra.ShellCompRequestCmd, "status", "--lang", typed)
		if r.code != 0 || !strings.Contains(r.stdout, "zh-CN\n") {
			t.Errorf("__complete status --lang %q: code %d %q %q", typed, r.code, r.stdout, r.stderr)
		}
	}
}

// commandName is the command path without the program name.
func commandName(c *cobra.Command) string {
	p := c.CommandPath()
	if i := strings.IndexByte(p, ' '); i >= 0 {
		return p[i+1:]
	}
	return p
}
