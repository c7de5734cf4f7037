package main

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/daokit/daokit/outbox"
)

// newOutboxCmd is "daokit outbox <sub>": a person's hands on the team's
// outbox from a shell (seed 003), with --json for scripts.
func newOutboxCmd(a *app) *cobra.Command {
	c := a.group("outbox", "cli.outbox.summary", "cli.outbox.error.missing_sub", "cli.outbox.error.unknown_sub")
	for _, s := range []struct {
		name, summary, argsID string
		build                 func(o *outboxCmd) func(args []string) error
	}{
		{"new", "cli.outbox.new.summary", "cli.outbox.new.args", (*outboxCmd).newIssue},
		{"comment", "cli.outbox.comment.summary", "cli.outbox.comment.args", (*outboxCmd).comment},
		{"label", "cli.outbox.label.summary", "cli.outbox.label.args", (*outboxCmd).label},
		{"assign", "cli.outbox.assign.summary", "cli.outbox.assign.args", (*outboxCmd).assign},
		{"close", "cli.outbox.close.summary", "cli.outbox.close.args", (*outboxCmd).closeIssue},
		{"list", "cli.outbox.list.summary", "", (*outboxCmd).list},
		{"show", "cli.outbox.show.summary", "cli.outbox.show.args", (*outboxCmd).show},
		{"init", "cli.outbox.init.summary", "", (*outboxCmd).initDB},
	} {
		sub := a.command(s.name, s.summary, nil)
		if s.argsID != "" {
			takesArgs(sub, s.argsID)
		}
		o := &outboxCmd{a: a, c: sub}
		f := sub.Flags()
		o.root = rootFlag(f)
		o.dir = f.String("outbox", "", "cli.outbox.flag.outbox")
		o.asJSON = f.Bool("json", false, "cli.flag.json")
		o.as = f.String("as", "", "cli.outbox.flag.as")
		run := s.build(o)
		sub.RunE = func(_ *cobra.Command, args []string) error { return run(args) }
		c.AddCommand(sub)
	}
	c.AddCommand(newOutboxExportCmd(a))
	return c
}

// outboxCmd is one "daokit outbox <sub>": the flags every subcommand has,
// and the open outbox.
type outboxCmd struct {
	a      *app
	c      *cobra.Command
	root   *string
	dir    *string
	asJSON *bool
	as     *string
	ob     outbox.Backend
	env    *teamEnv
}

// defaultActor names the person at the shell: $DAOKIT_ACTOR, else $USER.
func defaultActor(getenv func(string) string) string {
	for _, k := range []string{"DAOKIT_ACTOR", "USER"} {
		if v := getenv(k); v != "" {
			return v
		}
	}
	return "person"
}

// open checks the argument count, then opens the outbox.
func (o *outboxCmd) open(args []string, minArgs int) error {
	if len(args) < minArgs {
		return o.a.usage(o.c, o.a.t("cli.outbox.error.args", "Args", o.a.t(o.c.Annotations[annotArgs])))
	}
	if *o.as == "" {
		*o.as = defaultActor(o.a.getenv)
	}
	env, err := o.a.loadTeam(*o.root, *o.dir)
	if err != nil {
		return err
	}
	ob, err := env.open(o.a.ctx, o.a.getenv)
	if err != nil {
		return o.a.outboxFailure(err)
	}
	o.ob, o.env = ob, env
	return nil
}

// run wraps a subcommand's body: it checks the argument count and opens
// the outbox before the body, and closes the outbox after it.
func (o *outboxCmd) run(minArgs int, body func(args []string) error) func(args []string) error {
	return func(args []string) error {
		if err := o.open(args, minArgs); err != nil {
			return err
		}
		defer o.close()
		return body(args)
	}
}

// onIssue is run for the subcommands whose first argument is an issue
// ("#12" or "12"): the body gets its id and the arguments after it.
func (o *outboxCmd) onIssue(minArgs int, body func(id int64, rest []string) error) func(args []string) error {
	return o.run(minArgs, func(args []string) error {
		id, err := o.issueArg(args[0])
		if err != nil {
			return err
		}
		return body(id, args[1:])
	})
}

// applyOp applies one operation on an issue and reports the result.
func (o *outboxCmd) applyOp(id int64, op outbox.Op) error {
	r, err := o.apply(outbox.Change{Ops: []outbox.Op{op}})
	if err != nil {
		return err
	}
	return o.printResult(id, r)
}

func (o *outboxCmd) close() {
	if o.ob != nil {
		o.ob.Close()
	}
}

func (o *outboxCmd) issueArg(s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(s, "#"), 10, 64)
	if err != nil || n <= 0 {
		return 0, o.a.usage(o.c, o.a.t("cli.outbox.error.issue", "Value", s))
	}
	return n, nil
}

// apply commits a change the person asked for and reports the outcome.
func (o *outboxCmd) apply(c outbox.Change) (outbox.Result, error) {
	c.Actor = *o.as
	r, err := o.ob.Apply(o.a.ctx, c)
	switch {
	case errors.Is(err, outbox.ErrReadOnly):
		return r, failf("E_OUTBOX_READ_ONLY", o.a.t("cli.outbox.error.read_only"))
	case errors.Is(err, outbox.ErrNotFound):
		return r, failf("E_OUTBOX_NOT_FOUND", o.a.t("cli.outbox.error.not_found"))
	case errors.Is(err, outbox.ErrInvalid):
		return r, failf("E_OUTBOX_INVALID", o.a.t("cli.outbox.error.invalid", "Detail", err.Error()))
	case err != nil:
		return r, failf("E_OUTBOX", err.Error())
	}
	return r, nil
}

func (o *outboxCmd) printJSON(v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	o.a.println(string(data))
	return nil
}

// printResult reports a change: the ids it created and the events it
// appended.
func (o *outboxCmd) printResult(issue int64, r outbox.Result) error {
	if *o.asJSON {
		return o.printJSON(map[string]any{"issue": issue, "comments": nonNil(r.Comments), "events": nonNil(r.Events)})
	}
	o.a.println(o.a.t("cli.outbox.done", "Issue", issue, "Events", len(r.Events)))
	return nil
}

func nonNil(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}

func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
}
