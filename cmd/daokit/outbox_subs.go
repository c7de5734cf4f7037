package main

import (
	"strconv"
	"strings"

	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/pick"
)

func (o *outboxCmd) newIssue() func(args []string) error {
	to := o.c.Flags().String("to", "", "cli.outbox.new.flag.to")
	labels := o.c.Flags().String("label", "", "cli.outbox.new.flag.label")
	body := o.c.Flags().String("body", "", "cli.outbox.new.flag.body")
	depends := o.c.Flags().String("depends-on", "", "cli.outbox.new.flag.depends_on")
	trigger := o.c.Flags().String("trigger", "", "cli.outbox.flag.trigger")
	return o.run(1, func(args []string) error {
		ls := splitList(*labels)
		if *to != "" {
			if _, ok := o.env.wf.Roles[*to]; !ok {
				return o.a.usage(o.c, o.a.t("cli.outbox.error.role", "Role", *to))
			}
			ls = append(ls, "to:"+*to)
		}
		m := outbox.Mailbox{Text: *body, Fields: map[string]string{
			outbox.FieldTrigger:   *trigger,
			outbox.FieldDependsOn: outbox.FormatRefs(outbox.IssueRefs(*depends)),
		}}
		r, err := o.apply(outbox.Change{Ops: []outbox.Op{{Kind: outbox.OpOpen,
			Title: strings.Join(args, " "), Body: m.Render(), Labels: ls}}})
		if err != nil {
			return err
		}
		return o.printResult(r.Issues[0], r)
	})
}

func (o *outboxCmd) comment() func(args []string) error {
	trigger := o.c.Flags().String("trigger", "", "cli.outbox.flag.trigger")
	return o.onIssue(2, func(id int64, rest []string) error {
		m := outbox.Mailbox{Text: strings.Join(rest, " "), Fields: map[string]string{outbox.FieldTrigger: *trigger}}
		return o.applyOp(id, outbox.Op{Kind: outbox.OpComment, Issue: id, Body: m.Render()})
	})
}

func (o *outboxCmd) label() func(args []string) error {
	remove := o.c.Flags().Bool("remove", false, "cli.outbox.label.flag.remove")
	return o.onIssue(2, func(id int64, rest []string) error {
		kind := outbox.OpLabel
		if *remove {
			kind = outbox.OpUnlabel
		}
		return o.applyOp(id, outbox.Op{Kind: kind, Issue: id, Labels: rest})
	})
}

func (o *outboxCmd) assign() func(args []string) error {
	return o.onIssue(2, func(id int64, rest []string) error {
		return o.applyOp(id, outbox.Op{Kind: outbox.OpAssign, Issue: id, Assignee: rest[0]})
	})
}

func (o *outboxCmd) closeIssue() func(args []string) error {
	return o.onIssue(1, func(id int64, _ []string) error {
		return o.applyOp(id, outbox.Op{Kind: outbox.OpClose, Issue: id})
	})
}

func (o *outboxCmd) list() func(args []string) error {
	label := o.c.Flags().String("label", "", "cli.outbox.list.flag.label")
	state := o.c.Flags().String("state", "open", "cli.outbox.list.flag.state")
	return o.run(0, func([]string) error {
		q := outbox.Query{Label: *label, State: *state}
		switch *state {
		case "open", "closed":
		case "all":
			q.State = ""
		default:
			return o.a.usage(o.c, o.a.t("cli.outbox.error.state", "Value", *state))
		}
		list, err := o.ob.List(o.a.ctx, q)
		if err != nil {
			return failf("E_OUTBOX", err.Error())
		}
		if *o.asJSON {
			if list == nil {
				list = []outbox.Issue{}
			}
			return o.printJSON(list)
		}
		rows := make([][]string, 0, len(list))
		for _, is := range list {
			rows = append(rows, []string{"#" + strconv.FormatInt(is.ID, 10), o.stateText(is), orDash(is.Assignee), orDash(strings.Join(is.Labels, ",")), is.Title})
		}
		writeTable(o.a.io.out, "", []string{o.a.t("cli.outbox.col.id"), o.a.t("cli.outbox.col.state"), o.a.t("cli.outbox.col.assignee"),
			o.a.t("cli.outbox.col.labels"), o.a.t("cli.outbox.col.title")}, rows)
		return nil
	})
}

func (o *outboxCmd) stateText(is outbox.Issue) string {
	if is.Closed {
		return o.a.t("cli.outbox.state.closed")
	}
	return o.a.t("cli.outbox.state.open")
}

func (o *outboxCmd) show() func(args []string) error {
	return o.onIssue(1, func(id int64, _ []string) error {
		is, err := o.ob.Issue(o.a.ctx, id)
		if err != nil {
			return failf("E_OUTBOX_NOT_FOUND", o.a.t("cli.outbox.error.not_found"))
		}
		cs, err := o.ob.Comments(o.a.ctx, id)
		if err != nil {
			return failf("E_OUTBOX", err.Error())
		}
		if *o.asJSON {
			if cs == nil {
				cs = []outbox.Comment{}
			}
			if is.Labels == nil {
				is.Labels = []string{}
			}
			return o.printJSON(map[string]any{"issue": is, "comments": cs})
		}
		o.a.println(o.a.t("cli.outbox.show.head", "Issue", is.ID, "Title", is.Title, "State", o.stateText(is),
			"Author", is.Author, "Assignee", orDash(is.Assignee), "Labels", orDash(strings.Join(is.Labels, ", "))))
		if strings.TrimSpace(is.Body) != "" {
			o.a.println("")
			o.a.println(is.Body)
		}
		for _, c := range cs {
			o.a.println("")
			o.a.println(o.a.t("cli.outbox.show.comment", "ID", c.ID, "Author", c.Author, "Time", c.Created.Format("2006-01-02 15:04:05")))
			o.a.println(c.Body)
		}
		return nil
	})
}

// initDB is "daokit outbox init": the one way an outbox database comes
// to be. Every other command refuses a missing, emptied or corrupt one
// instead of making a new, empty outbox over the team's lost issues.
// --force moves a refused database aside (kept, never deleted) and makes
// a new one.
func (o *outboxCmd) initDB() func(args []string) error {
	force := o.c.Flags().Bool("force", false, "cli.outbox.init.flag.force")
	return func([]string) error {
		env, err := o.a.loadTeam(*o.root, *o.dir)
		if err != nil {
			return err
		}
		res, err := pick.Init(o.a.ctx, env.wf, *force)
		path := res.Where
		if err != nil {
			return o.a.outboxFailure(err)
		}
		if *o.asJSON {
			return o.printJSON(map[string]any{"path": path, "created": res.Created, "moved_aside": res.MovedAside})
		}
		if res.MovedAside != "" {
			o.a.println(o.a.t("cli.outbox.init.moved_aside", "Path", res.MovedAside))
		}
		if res.Created {
			o.a.println(o.a.t("cli.outbox.init.created", "Path", path))
		} else {
			o.a.println(o.a.t("cli.outbox.init.exists", "Path", path))
		}
		return nil
	}
}
