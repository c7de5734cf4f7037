package roster

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/daokit/daokit/outbox"
)

// Reasons a Lead process ended: stable codes kept in its Exit record and
// shown by daokit status and the roles pane with the message
// "team.lead_exit.<code>" (Detail, when set, is the error as printed).
// The outbox's refusals keep their own codes (outbox.OpenError.Code):
// OUTBOX_MISSING, OUTBOX_EMPTY, OUTBOX_CORRUPT; so do GitHub and GitLab
// set-up problems (outbox.GitHubError.Code, GITHUB_*, GITLAB_*), worded
// as "team.github.<code>".
const (
	// ExitFailed: the Lead stopped on an error of its own (Detail).
	ExitFailed = "LEAD_FAILED"
	// ExitNonzero: the Lead exited non-zero without saying why itself;
	// Detail is the last line it wrote to stderr.
	ExitNonzero = "LEAD_EXIT_NONZERO"
	// ExitSignal: a signal the controller did not send ended the Lead
	// (the OOM killer, a person's kill -9); Signal names it.
	ExitSignal = "LEAD_KILLED_SIGNAL"
	// ExitHung: the controller found the Lead's heartbeat STALE and
	// killed it.
	ExitHung = "LEAD_HUNG"
	// ExitStartFailed: the Lead's process could not be started.
	ExitStartFailed = "LEAD_START_FAILED"
	// ExitStopped: the Lead was stopped (the controller shut down).
	ExitStopped = "LEAD_STOPPED"
)

// exitReasons lists every code an Exit's Reason may hold: a code outside
// it (written by another daokit version) has no words in the catalog.
var exitReasons = []string{ExitFailed, ExitNonzero, ExitSignal, ExitHung, ExitStartFailed, ExitStopped, ExitGuardUnavailable,
	"OUTBOX_MISSING", "OUTBOX_EMPTY", "OUTBOX_CORRUPT",
	outbox.GitHubNoToken, outbox.GitHubBadRepo, outbox.GitHubBadToken, outbox.GitHubNoRepo, outbox.GitHubNoIssues,
	outbox.GitHubReadOnly, outbox.GitHubUnreachable, outbox.GitHubRateLimited,
	outbox.GitLabNoToken, outbox.GitLabBadRepo, outbox.GitLabBadToken, outbox.GitLabNoRepo, outbox.GitLabNoIssues,
	outbox.GitLabReadOnly, outbox.GitLabUnreachable, outbox.GitLabRateLimited}

// Exit is why a role's Lead process last ended, kept in
// <status dir>/<role>.exit.json until the next one: the Lead writes it
// itself when it stops on an error it knows, the controller when it sees
// the process end (adding the exit status, or the whole record for a
// Lead that could not say: killed, hung, crashed).
type Exit struct {
	Role     string `json:"role"`
	PID      int    `json:"pid"`
	Reason   string `json:"reason"`
	Detail   string `json:"detail,omitempty"`
	ExitCode int    `json:"exit_code"`
	Signal   string `json:"signal,omitempty"`
	// Repo and API name the repository and API root of a GitHub or
	// GitLab set-up problem (Reason GITHUB_*, GITLAB_*).
	Repo string `json:"repo,omitempty"`
	API  string `json:"api,omitempty"`
	// Restarts is how many times the controller had restarted the Lead;
	// GaveUp, that it will not restart it again (the restart bound).
	Restarts int       `json:"restarts,omitempty"`
	GaveUp   bool      `json:"gave_up,omitempty"`
	Time     time.Time `json:"time"`
}

// ExitPath is where role's Exit is kept.
func ExitPath(dir, role string) string { return filepath.Join(dir, role+".exit.json") }

// ReadExit reads role's last Exit.
func ReadExit(dir, role string) (Exit, error) {
	var e Exit
	data, err := os.ReadFile(ExitPath(dir, role))
	if err != nil {
		return e, err
	}
	err = json.Unmarshal(data, &e)
	return e, err
}

// WriteExit replaces role's Exit (temp file and rename: a reader sees
// the old record or the new one).
func WriteExit(dir string, e Exit) error {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := ExitPath(dir, e.Role)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ExitReasonOf is the reason code of the error a Lead stopped on: the
// outbox's refusal when it is one, else ExitFailed.
func ExitReasonOf(err error) string {
	var oe *outbox.OpenError
	if errors.As(err, &oe) {
		return oe.Code()
	}
	var ge *outbox.GitHubError
	if errors.As(err, &ge) {
		return ge.Code
	}
	var gu *GuardUnavailableError
	if errors.As(err, &gu) {
		return ExitGuardUnavailable
	}
	return ExitFailed
}

// StderrPath is the file the controller gives a Lead as its stderr
// (emptied at each start): its last line is the error a Lead that
// exited non-zero printed.
func StderrPath(dir, role string) string { return filepath.Join(dir, role+".stderr") }

// ExitOf is the Exit of role's Lead (process pid) that stopped on err:
// for a refused outbox, Detail is the database's path (and what is wrong
// with it), which the message of the code explains.
func ExitOf(role string, pid int, err error) Exit {
	e := Exit{Role: role, PID: pid, Reason: ExitReasonOf(err), Detail: err.Error(), ExitCode: 1}
	var oe *outbox.OpenError
	if errors.As(err, &oe) {
		e.Detail = oe.Path
		if oe.Detail != "" {
			e.Detail += ": " + oe.Detail
		}
	}
	var ge *outbox.GitHubError
	if errors.As(err, &ge) {
		e.Repo, e.API, e.Detail = ge.Repo, ge.API, ge.Detail
	}
	var gu *GuardUnavailableError
	if errors.As(err, &gu) {
		e.Detail = gu.Err.Error()
	}
	return e
}

// Text says why the Lead ended in the language of t (an i18n
// Localizer's T): the message of its Reason, and that daokit gave up
// restarting it.
func (e Exit) Text(t func(id string, kv ...any) string) string {
	detail := e.Detail
	if detail == "" {
		detail = "-"
	}
	var s string
	if !slices.Contains(exitReasons, e.Reason) {
		s = e.Reason + ": " + detail
	} else if strings.HasPrefix(e.Reason, "GITHUB_") || strings.HasPrefix(e.Reason, "GITLAB_") {
		s = t("team.github."+e.Reason, "Repo", e.Repo, "API", e.API, "Detail", detail)
	} else {
		s = t("team.lead_exit."+e.Reason, "Detail", detail, "Signal", e.Signal, "Code", e.ExitCode)
	}
	if e.GaveUp {
		s += " " + t("team.lead_exit.gave_up", "Restarts", e.Restarts)
	}
	return s
}
