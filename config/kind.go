package config

import "strings"

// Kind says which program a lane runs and how daokit reads its output.
type Kind string

// The worker kinds.
const (
	// KindSim is the built-in simulated coding agent ("daokit worker sim"),
	// which speaks the worker protocol. It needs no API key or network.
	KindSim Kind = "sim"
	// KindCommand is any program; every output line counts as activity and
	// lines marked with the worker protocol prefix are understood.
	KindCommand Kind = "command"
	// KindClaude is Claude Code in print mode with stream-json output.
	KindClaude Kind = "claude"
	// KindCodex is the Codex CLI's "exec --json" event stream.
	KindCodex Kind = "codex"
)

// Kinds lists the worker kinds in documentation order.
func Kinds() []Kind { return []Kind{KindSim, KindCommand, KindClaude, KindCodex} }

func kindNames() string {
	names := make([]string, 0, 4)
	for _, k := range Kinds() {
		names = append(names, string(k))
	}
	return strings.Join(names, ", ")
}

// Placeholders that a lane's command and resume_command may contain, each
// replaced inside any argument (no shell is involved, so an instruction is
// always exactly one argument when written as "{instruction}").
const (
	// PlaceholderInstruction is the step's instruction text.
	PlaceholderInstruction = "{instruction}"
	// PlaceholderDaokit is the path of the running daokit binary.
	PlaceholderDaokit = "{daokit}"
	// PlaceholderLang is the language the person reads (en, zh-CN).
	PlaceholderLang = "{lang}"
	// PlaceholderRoot is the absolute ledger root.
	PlaceholderRoot = "{root}"
	// PlaceholderTask, PlaceholderRun and PlaceholderStep are the owner ids
	// of the run.
	PlaceholderTask = "{task_id}"
	PlaceholderRun  = "{run_id}"
	PlaceholderStep = "{step_id}"
	// PlaceholderSession is the resume handle a worker reported earlier
	// (for agent CLIs, their session id); only resume_command uses it.
	PlaceholderSession = "{session}"
)

// Vars are the values that Expand substitutes for the placeholders. A
// field left empty replaces its placeholder with "".
type Vars struct {
	Instruction string
	Daokit      string
	Lang        string
	Root        string
	TaskID      string
	RunID       string
	StepID      string
	Session     string
}

// Expand returns argv with every placeholder replaced. Unknown {words}
// stay as they are, so that shell snippets such as ${HOME} survive.
func Expand(argv []string, v Vars) []string {
	r := strings.NewReplacer(
		PlaceholderInstruction, v.Instruction,
		PlaceholderDaokit, v.Daokit,
		PlaceholderLang, v.Lang,
		PlaceholderRoot, v.Root,
		PlaceholderTask, v.TaskID,
		PlaceholderRun, v.RunID,
		PlaceholderStep, v.StepID,
		PlaceholderSession, v.Session,
	)
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = r.Replace(a)
	}
	return out
}

// DefaultCommand is the command line a lane of kind k runs when its
// command is not set. KindCommand has none: it must be configured.
//
// Every default ends its options with "--", so that an instruction that
// starts with "-" stays the instruction. The agent CLIs get the
// permissions to do a coder's work inside their folder and nothing that
// needs a person's answer, since nobody can answer one in print mode:
//
//   - Claude Code: --permission-mode acceptEdits (edits inside its working
//     folder, the step's worktree) plus --allowedTools Bash (commands
//     such as go build, which acceptEdits alone denies). Not
//     bypassPermissions: Claude Code refuses it when run as root unless
//     IS_SANDBOX=1 is set, and the defaults must work as root too.
//   - Codex: --sandbox workspace-write (writes inside the folder and the
//     temporary directory; no network). exec's default sandbox is
//     read-only, and it never asks for approval.
//
// A call the permissions still refuse ends the step
// AGENT_PERMISSION_DENIED rather than passing.
func DefaultCommand(k Kind) []string {
	switch k {
	case KindSim:
		return []string{PlaceholderDaokit, "worker", "sim", "--lang", PlaceholderLang, "--", PlaceholderInstruction}
	case KindClaude:
		return []string{"claude", "-p", "--output-format", "stream-json", "--verbose",
			"--permission-mode", "acceptEdits", "--allowedTools", "Bash", "--", PlaceholderInstruction}
	case KindCodex:
		return []string{"codex", "exec", "--json", "--sandbox", "workspace-write", "--", PlaceholderInstruction}
	}
	return nil
}

// DefaultResumeCommand is the command line that continues session
// {session} of a lane of kind k whose command and resume_command are both
// unset: the same permissions as DefaultCommand. "codex exec resume" has
// no --sandbox option; the same policy is set through -c.
func DefaultResumeCommand(k Kind) []string {
	switch k {
	case KindClaude:
		return []string{"claude", "-p", "--resume", PlaceholderSession, "--output-format", "stream-json", "--verbose",
			"--permission-mode", "acceptEdits", "--allowedTools", "Bash", "--", PlaceholderInstruction}
	case KindCodex:
		return []string{"codex", "exec", "resume", "--json", "-c", `sandbox_mode="workspace-write"`, "--",
			PlaceholderSession, PlaceholderInstruction}
	}
	return nil
}

// CodexSkipGitRepoCheck is the option Codex needs to run in a folder that
// is not in a git repository: without it "codex exec" refuses to start.
const CodexSkipGitRepoCheck = "--skip-git-repo-check"

// OutsideGit adapts a default command line of kind k to a working
// folder outside any git repository: Codex gets CodexSkipGitRepoCheck
// (before the "--"); other kinds need nothing.
func OutsideGit(k Kind, argv []string) []string {
	if k != KindCodex {
		return argv
	}
	for i, a := range argv {
		if a == "--" {
			return append(append(append([]string(nil), argv[:i]...), CodexSkipGitRepoCheck), argv[i:]...)
		}
	}
	return argv
}

// mentions reports whether any argument contains placeholder p.
func mentions(argv []string, p string) bool {
	for _, a := range argv {
		if strings.Contains(a, p) {
			return true
		}
	}
	return false
}
