package main

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"github.com/daokit/daokit/ledger"
	"github.com/spf13/cobra"
)

func newReplayCmd(a *app) *cobra.Command {
	c := quickRead(a.command("replay", "cli.replay.summary", nil))
	f := c.Flags()
	root := rootFlag(f)
	source := f.String("source", "events", "cli.replay.flag.source")
	limit := f.Int("limit", 20, "cli.replay.flag.limit")
	asJSON := f.Bool("json", false, "cli.flag.json")
	_ = c.RegisterFlagCompletionFunc("source", cobra.FixedCompletions([]string{"events", "snapshots"}, cobra.ShellCompDirectiveNoFileComp))
	var remote remoteFlags
	a.addRemoteFlags(f, &remote)
	c.RunE = func(c *cobra.Command, _ []string) error {
		if remote.on() {
			dir, stop, err := a.remoteFolder(remote, "replay")
			if err != nil {
				return err
			}
			defer stop()
			*root = dir
		}
		return a.runReplay(c, *root, *source, *limit, *asJSON)
	}
	return c
}

func (a *app) runReplay(c *cobra.Command, root, source string, limit int, asJSON bool) error {
	if source != "events" && source != "snapshots" {
		return a.usage(c, a.t("cli.replay.error.source", "Value", source))
	}
	dir, err := absRoot(root)
	if err != nil {
		return failf("E_REPLAY_FAILED", err.Error())
	}
	if err := requireLedger(a, dir); err != nil {
		return failf("E_REPLAY_FAILED", err.Error())
	}
	n := max(limit, 1)
	if source == "snapshots" {
		return a.replaySnapshots(dir, n, asJSON)
	}
	path := ledger.Layout{Root: dir}.Events()
	tail, err := ledger.TailEvents(path, n)
	if err != nil {
		return failf("E_REPLAY_FAILED", a.fileProblem(path, err))
	}
	if tail.Skipped > 0 {
		fmt.Fprintln(a.io.err, a.t("cli.replay.skipped", "Count", tail.Skipped, "Path", path))
	}
	if asJSON {
		// One JSON array, [] when empty, as the Python tool prints it:
		// json.loads of the whole output works.
		events := tail.Events
		if events == nil {
			events = []ledger.Event{}
		}
		return a.writeJSON(events)
	}
	if len(tail.Events) == 0 {
		a.println(a.t("cli.replay.empty", "Source", "events"))
		return nil
	}
	for _, e := range tail.Events {
		a.printf("%s %s step=%s severity=%s\n", orDash(e.Timestamp), orUnknown(e.EventType), orDash(e.StepID), orDash(e.Severity))
	}
	return nil
}

func orUnknown(s string) string {
	if s == "" {
		return "UNKNOWN"
	}
	return s
}

// replaySnapshots lists the newest entries of state/snapshots.jsonl, which
// the Python tool writes on every save (daokit does not; it keeps the
// history in events.jsonl).
func (a *app) replaySnapshots(root string, n int, asJSON bool) error {
	path := ledger.Layout{Root: root}.Path("snapshots.jsonl")
	tail, err := ledger.TailObjects(path, n)
	switch {
	case errors.Is(err, ledger.ErrMissing):
		// No snapshot was ever recorded (daokit keeps its history in
		// events.jsonl): an empty list, as the Python tool says.
		tail = ledger.ObjectTail{}
	case err != nil:
		return failf("E_REPLAY_FAILED", a.fileProblem(path, err))
	}
	if tail.Skipped > 0 {
		fmt.Fprintln(a.io.err, a.t("cli.replay.skipped", "Count", tail.Skipped, "Path", path))
	}
	if asJSON {
		objects := tail.Objects
		if objects == nil {
			objects = []ledger.Object{}
		}
		return a.writeJSON(objects)
	}
	if len(tail.Objects) == 0 {
		a.println(a.t("cli.replay.empty", "Source", "snapshots"))
		return nil
	}
	for _, o := range tail.Objects {
		a.printf("%s %s from=%s to=%s\n", orDash(o.String("timestamp")), orDash(o.String("node")),
			orDash(o.String("from_status")), orDash(o.String("to_status")))
	}
	return nil
}

// fileProblem renders a ledger load error as one translated line naming
// the file and the reason.
func (a *app) fileProblem(path string, err error) string {
	switch {
	case errors.Is(err, ledger.ErrMissing):
		return a.t("cli.file.missing", "Path", path)
	case errors.Is(err, ledger.ErrEmpty):
		return a.t("cli.file.empty", "Path", path)
	case errors.Is(err, ledger.ErrSymlink):
		return a.t("cli.file.symlink", "Path", path)
	case errors.Is(err, ledger.ErrNotRegular):
		return a.t("cli.file.not_regular", "Path", path)
	case errors.Is(err, ledger.ErrTooLarge):
		return a.t("cli.file.too_large", "Path", path)
	}
	if problems := ledger.Problems(err); len(problems) > 0 {
		return a.t("cli.file.invalid", "Path", path, "Reason", a.problem(problems[0]))
	}
	return a.t("cli.file.unreadable", "Path", path, "Reason", a.osReason(err))
}

// problem translates one validation problem, naming the place in words:
// "field leases[0].pid must be >= 1", "the content is not valid JSON".
func (a *app) problem(p *ledger.ValidationError) string {
	return a.t("cli.problem."+p.Code, "Path", a.where(p.Path), "Want", p.Want)
}

// where renders a JSON path ("$", "$.steps[0].title") for a person.
func (a *app) where(path string) string {
	field, ok := strings.CutPrefix(path, "$.")
	if !ok || field == "" {
		return a.t("cli.problem.document")
	}
	return a.t("cli.problem.field", "Field", field)
}

// osReason says why a file could not be read in the reader's language,
// without Go's "open /path:" prefix.
func (a *app) osReason(err error) string {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return a.t("cli.os.permission")
	case errors.Is(err, syscall.ENOTDIR):
		return a.t("cli.os.not_dir")
	case errors.Is(err, syscall.EISDIR):
		return a.t("cli.os.is_dir")
	case errors.Is(err, fs.ErrNotExist):
		return a.t("cli.os.missing")
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return a.t("cli.os.other", "Errno", int(errno))
	}
	return a.t("cli.os.unknown")
}
