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
func DefaultCommand(k Kind) []string {
	switch k {
	case KindSim:
		// "--" keeps an instruction that starts with "-" from being read
		// as a flag.
		return []string{PlaceholderDaokit, "worker", "sim", "--lang", PlaceholderLang, "--", PlaceholderInstruction}
	case KindClaude:
		return []string{"claude", "-p", "--output-format", "stream-json", "--verbose", PlaceholderInstruction}
	case KindCodex:
		return []string{"codex", "exec", "--json", PlaceholderInstruction}
	}
	return nil
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
