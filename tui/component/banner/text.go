package banner

import (
	"errors"
	"strconv"
	"strings"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/link"
	"github.com/daokit/daokit/tui/live"
)

// fileText names the file and says what is wrong with it, and whether
// the panes still show its last good data.
func fileText(env *component.Env, name string, p fileProblem) string {
	reason := FileReason(env, p.err)
	id := "tui.banner.file"
	if p.kept {
		id = "tui.banner.file_kept"
	}
	return env.T(id, "File", name, "Reason", reason)
}

// FileReason says in the person's language why a ledger file could not
// be loaded.
func FileReason(env *component.Env, err error) string {
	switch {
	case errors.Is(err, ledger.ErrMissing):
		return env.T("tui.file.missing")
	case errors.Is(err, ledger.ErrEmpty):
		return env.T("tui.file.empty")
	case errors.Is(err, ledger.ErrNotRegular):
		return env.T("tui.file.not_regular")
	case errors.Is(err, ledger.ErrTooLarge):
		return env.T("tui.file.too_large")
	}
	if ps := ledger.Problems(err); len(ps) > 0 {
		p := ps[0]
		if p.Code == ledger.ProblemInvalidJSON {
			return env.T("tui.file.invalid_json")
		}
		problem := env.T("tui.problem." + p.Code)
		if problem == "tui.problem."+p.Code {
			problem = p.Code
		}
		return env.T("tui.file.invalid", "Path", env.Clean(p.Path), "Problem", problem)
	}
	var fe *ledger.FileError
	if errors.As(err, &fe) {
		err = fe.Err
	}
	return env.T("tui.file.io", "Error", env.Clean(err.Error()))
}

// linkItem says what is wrong with the link to the controller, if
// anything, and which key starts a new one.
func linkItem(env *component.Env, s link.State) (Item, bool) {
	key := env.Keys.Controller.Help().Key
	why := ""
	if s.Err != nil {
		why = component.ErrorText(env, s.Err)
	}
	switch s.Phase {
	case link.Lost:
		return Item{Level: Error, Text: env.T("tui.recovery.lost", "Why", why) + successor(env, s, key)}, true
	case link.Exited:
		if s.ConfigBroken() {
			return configItem(env, s.Exit.Config, key), true
		}
		return Item{Level: Error, Text: exitText(env, s.Exit) + successor(env, s, key)}, true
	case link.Failed:
		return Item{Level: Error, Text: env.T("tui.recovery.failed", "Why", why) + successor(env, s, key)}, true
	case link.Waiting:
		return Item{Level: Info, Text: env.T("tui.banner.waiting", "PID", itoa(s.PID), "D", env.Duration(s.Elapsed()))}, true
	case link.Starting:
		return Item{Level: Info, Text: env.T("tui.banner.starting")}, true
	case link.Connecting:
		if s.CanStart() {
			return Item{Level: Warn, Text: env.T("tui.banner.stuck", "PID", itoa(s.PID), "Key", key)}, true
		}
	case link.Connected:
		// Raised while the controller says so, gone with its next state
		// (ready once space returns) or with the connection.
		if s.Controller == live.ControllerDiskFull {
			return Item{Level: Error, Text: env.T("tui.banner.disk_full")}, true
		}
	}
	return Item{}, false
}

// configItem lists every problem of daokit.toml, each on a line of its
// own and shown whole, under what to do: fix them (daokit check lists
// them too), then start a controller with key.
func configItem(env *component.Env, problems []live.Problem, key string) Item {
	lines := []string{env.T("tui.recovery.config", "N", len(problems), "Key", key)}
	for _, p := range problems {
		lines = append(lines, env.Clean(p.Localize(env.Loc)))
	}
	return Item{Level: Error, Text: strings.Join(lines, "\n"), Whole: true}
}

func itoa(n int) string { return strconv.Itoa(n) }

// exitText names how the controller ended: the signal that killed it or
// its exit status, and its last words when it left any.
func exitText(env *component.Env, e live.Exit) string {
	out := ""
	if o := env.Clean(e.Output); o != "" {
		out = env.T("tui.recovery.said", "Output", o)
	}
	if e.Signal != "" {
		return env.T("tui.recovery.killed", "Signal", e.Signal, "Said", out)
	}
	return env.T("tui.recovery.exited", "Code", itoa(e.Code), "Said", out)
}

// successor says what happens next: the successor the window starts by
// itself (when, which try), or that it gave up and the key to press.
func successor(env *component.Env, s link.State, key string) string {
	switch {
	case !s.Startable:
		return ""
	case s.GaveUp:
		return " " + env.T("tui.recovery.gave_up", "Max", itoa(link.MaxAutoStarts), "Key", key)
	case !s.Retry.IsZero():
		return " " + env.T("tui.recovery.successor", "D", env.Duration(s.RetryIn()), "N", itoa(s.Tries+1),
			"Max", itoa(link.MaxAutoStarts), "Key", key)
	}
	return ""
}
