package outbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ExportReader is the reader under which Export records what it brought
// to the service. Its triggers name the items of the old outbox
// ("export:issue:3", "export:comment:12"), and they go into the marker
// of each body it posts: an export killed at any point and run again
// brings each item once (an item posted but not yet committed is found
// by its marked body, as Apply recovers any write), and a rerun after
// a finished one sends nothing.
const ExportReader = "daokit-export"

// ExportKind names one kind of step of an export.
type ExportKind string

// The steps of an export, in the order it takes them: every issue, the
// references of those that named an issue opened after them, then each
// issue's comments and its closing.
const (
	ExportIssue   ExportKind = "issue"
	ExportText    ExportKind = "text"
	ExportComment ExportKind = "comment"
	ExportClose   ExportKind = "close"
)

// ExportStep is one step Export took, or would take (DryRun).
type ExportStep struct {
	Kind ExportKind
	// From is the issue's number (a comment's: its id) in the old
	// outbox; Issue the number of the issue it belongs to there.
	From, Issue int64
	// To is its number (id) on the service: 0 for what a dry run has not
	// brought over yet.
	To int64
	// Had: it was there already (an earlier run's); nothing was sent.
	Had bool
	// Title is the issue's title.
	Title string
}

// ExportOptions tune Export.
type ExportOptions struct {
	// DryRun reads the source and the service, and sends nothing.
	DryRun bool
	// Byline is the first line of every body: who wrote it in the old
	// outbox, and when (the service shows the token's user as the author
	// of all of them), in language lang. Nil: none.
	Byline func(lang, author string, at time.Time) string
	// Lang is the bylines' language. The first run's is kept in the
	// mirror and used by every later run: a crashed step is found by its
	// body, and a rerun that wrote another language would rewrite them.
	Lang string
	// Progress is told of each step as it is taken (planned), with its
	// position n among the total issues and comments.
	Progress func(s ExportStep, n, total int)
	// RateWait is told of each wait the service imposes.
	RateWait func(RateWait)
}

// ExportReport sums up an export.
type ExportReport struct {
	// Issues and Comments were brought over by this run (a dry run:
	// would be); Had were there already.
	Issues, Comments, Had int
	// Numbers maps the old outbox's issue numbers to the service's
	// (a dry run's: those brought over already).
	Numbers map[int64]int64
	// Unfinished are the open issues in a Lead's hands (a state: label)
	// whose number changed, in the old numbers: the Leads' worktrees and
	// branches are named by issue number, and theirs by the old one.
	Unfinished []int64
}

// Export brings the issues of the SQLite outbox src to the service of g:
// each issue with its title, body, labels, assignee and state, and its
// comments in order, each body headed by the Byline and with its issue
// references renumbered to the service's numbers. The triggers the
// readers of src had answered go into the markers, so that a Lead that
// reads the service afterwards answers none of them again. The team
// must be stopped: Export does not stop Leads writing either outbox.
func Export(ctx context.Context, src *SQLite, g *Forge, o ExportOptions) (ExportReport, error) {
	rep := ExportReport{Numbers: map[int64]int64{}}
	if g.readOnly {
		return rep, ErrReadOnly
	}
	if o.RateWait != nil {
		prev := g.c.onWait
		g.c.onWait = func(w RateWait) {
			if prev != nil {
				prev(w)
			}
			o.RateWait(w)
		}
		defer func() { g.c.onWait = prev }()
	}
	if err := g.Sync(ctx); err != nil {
		return rep, err
	}
	if err := g.pinLang(ctx, &o); err != nil {
		return rep, err
	}
	s, err := readSource(ctx, src)
	if err != nil {
		return rep, err
	}
	x := &exporter{g: g, o: o, s: s, rep: &rep, total: len(s.issues)}
	for _, is := range s.issues {
		x.total += len(s.comments[is.ID])
	}
	for i, is := range s.issues {
		if err := x.issue(ctx, i, is); err != nil {
			return rep, err
		}
	}
	for _, is := range s.issues {
		if err := x.text(ctx, is); err != nil {
			return rep, err
		}
	}
	for _, is := range s.issues {
		for _, c := range s.comments[is.ID] {
			if err := x.comment(ctx, is, c); err != nil {
				return rep, err
			}
		}
		if err := x.close(ctx, is); err != nil {
			return rep, err
		}
		if n, ok := rep.Numbers[is.ID]; ok && n != is.ID && !is.Closed && is.LabelWithPrefix("state:") != "" {
			rep.Unfinished = append(rep.Unfinished, is.ID)
		}
	}
	return rep, nil
}

// exporter is one run of Export.
type exporter struct {
	g     *Forge
	o     ExportOptions
	s     source
	rep   *ExportReport
	n     int
	total int
}

func (x *exporter) progress(st ExportStep, counts bool) {
	if counts {
		x.n++
	}
	if x.o.Progress != nil {
		x.o.Progress(st, x.n, x.total)
	}
}

// exported is where origin is on the service (ok false: not brought).
func (x *exporter) exported(ctx context.Context, origin string) (issue, comment int64, ok bool, err error) {
	err = x.g.db.QueryRowContext(ctx, `SELECT issue, comment FROM gh_exported WHERE origin=?`, origin).Scan(&issue, &comment)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, false, nil
	}
	return issue, comment, err == nil, err
}

// body is the byline and the text.
func (x *exporter) body(author string, at time.Time, text string) string {
	if x.o.Byline == nil {
		return text
	}
	if text == "" {
		return x.o.Byline(x.o.Lang, author, at)
	}
	return x.o.Byline(x.o.Lang, author, at) + "\n\n" + text
}

// numbers renumbers by what is brought over; upTo > 0 keeps to the
// issues before it in the source, so that the first text of an issue is
// the same on every run.
func (x *exporter) numbers(upTo int64) func(int64) (int64, bool) {
	return func(n int64) (int64, bool) {
		if upTo > 0 && n >= upTo {
			return 0, false
		}
		m, ok := x.rep.Numbers[n]
		return m, ok
	}
}

func issueOrigin(n int64) string   { return "export:issue:" + strconv.FormatInt(n, 10) }
func commentOrigin(c int64) string { return "export:comment:" + strconv.FormatInt(c, 10) }

// firstText is the title and body the issue is opened with.
func (x *exporter) firstText(is Issue) (string, string) {
	to := x.numbers(is.ID)
	return rewriteRefs(is.Title, to), x.body(is.Author, is.Created, rewriteRefs(is.Body, to))
}

func (x *exporter) issue(ctx context.Context, i int, is Issue) error {
	st := ExportStep{Kind: ExportIssue, From: is.ID, Issue: is.ID, Title: is.Title}
	n, _, ok, err := x.exported(ctx, issueOrigin(is.ID))
	if err != nil {
		return err
	}
	if ok {
		x.rep.Numbers[is.ID], x.rep.Had = n, x.rep.Had+1
		st.To, st.Had = n, true
		x.progress(st, true)
		if x.o.DryRun {
			return nil
		}
		return x.keepAssignee(ctx, is, n)
	}
	x.rep.Issues++
	if x.o.DryRun {
		x.progress(st, true)
		return nil
	}
	title, body := x.firstText(is)
	res, err := x.g.Apply(ctx, Change{Actor: is.Author, Reader: ExportReader, Trigger: issueOrigin(is.ID), answered: x.s.byIssue[is.ID],
		Ops: []Op{{Kind: OpOpen, Title: title, Body: body, Labels: rewriteLabels(is.Labels, x.numbers(0)), Assignee: is.Assignee}}})
	if err != nil {
		return fmt.Errorf("issue #%d: %w", is.ID, err)
	}
	if len(res.Issues) == 0 {
		if n, _, ok, err = x.exported(ctx, issueOrigin(is.ID)); err != nil || !ok {
			return errors.Join(err, fmt.Errorf("%w: issue #%d is recorded as brought over, and not found in the mirror", ErrNotFound, is.ID))
		}
		res.Issues = []int64{n}
	}
	x.rep.Numbers[is.ID] = res.Issues[0]
	st.To = res.Issues[0]
	x.progress(st, true)
	return x.keepAssignee(ctx, is, res.Issues[0])
}

// keepAssignee gives issue n the source's assignee as an assignee label
// when the service left it out (a name that is none of its users: GitHub
// and GitLab drop an assignee they cannot assign), so that no assignee
// is lost on the way.
func (x *exporter) keepAssignee(ctx context.Context, is Issue, n int64) error {
	if is.Assignee == "" {
		return nil
	}
	var have string
	if err := x.g.db.QueryRowContext(ctx, `SELECT assignee FROM issues WHERE id=?`, n).Scan(&have); err != nil {
		return err
	}
	if have == is.Assignee {
		return nil
	}
	_, err := x.g.Apply(ctx, Change{Actor: is.Author, Ops: []Op{{Kind: OpLabel, Issue: n, Labels: []string{AssigneeLabelPrefix + is.Assignee}}}})
	return err
}

// text gives an issue that named an issue opened after it the numbers
// of the service, once they are all known.
func (x *exporter) text(ctx context.Context, is Issue) error {
	n, ok := x.rep.Numbers[is.ID]
	if !ok {
		return nil // a dry run's
	}
	to := x.numbers(0)
	title, body := rewriteRefs(is.Title, to), x.body(is.Author, is.Created, rewriteRefs(is.Body, to))
	if t0, b0 := x.firstText(is); t0 == title && b0 == body {
		return nil
	}
	var haveTitle, haveBody string
	if err := x.g.db.QueryRowContext(ctx, `SELECT title, body FROM issues WHERE id=?`, n).Scan(&haveTitle, &haveBody); err != nil {
		return err
	}
	if haveTitle == title && strings.TrimSpace(haveBody) == strings.TrimSpace(body) {
		return nil
	}
	x.progress(ExportStep{Kind: ExportText, From: is.ID, Issue: is.ID, To: n, Title: is.Title}, false)
	if x.o.DryRun {
		return nil
	}
	m := marker{Actor: is.Author, Reader: ExportReader, Trigger: issueOrigin(is.ID), Answered: x.s.byIssue[is.ID]}
	return x.g.setText(ctx, is.Author, n, title, withMarker(body, m))
}

func (x *exporter) comment(ctx context.Context, is Issue, c Comment) error {
	st := ExportStep{Kind: ExportComment, From: c.ID, Issue: is.ID}
	_, id, ok, err := x.exported(ctx, commentOrigin(c.ID))
	if err != nil {
		return err
	}
	if ok {
		st.To, st.Had = id, true
		x.rep.Had++
		x.progress(st, true)
		return nil
	}
	x.rep.Comments++
	n, mapped := x.rep.Numbers[is.ID]
	if x.o.DryRun || !mapped {
		x.progress(st, true)
		return nil
	}
	body := x.body(c.Author, c.Created, rewriteRefs(c.Body, x.numbers(0)))
	res, err := x.g.Apply(ctx, Change{Actor: c.Author, Reader: ExportReader, Trigger: commentOrigin(c.ID), answered: x.s.byComment[c.ID],
		Ops: []Op{{Kind: OpComment, Issue: n, Body: body}}})
	if err != nil {
		return fmt.Errorf("comment %d of issue #%d: %w", c.ID, is.ID, err)
	}
	if len(res.Comments) > 0 {
		st.To = res.Comments[0]
	}
	x.progress(st, true)
	return nil
}

// close closes on the service an issue the source has closed, as the one
// who closed it; once (a person who reopens it there after the export
// is not overruled by a rerun).
func (x *exporter) close(ctx context.Context, is Issue) error {
	n, ok := x.rep.Numbers[is.ID]
	if !is.Closed {
		return nil
	}
	if !ok { // a dry run's, of an issue not brought over yet
		x.progress(ExportStep{Kind: ExportClose, From: is.ID, Issue: is.ID, Title: is.Title}, false)
		return nil
	}
	key := "export:close:" + strconv.FormatInt(is.ID, 10)
	var one int
	err := x.g.db.QueryRowContext(ctx, `SELECT 1 FROM triggers WHERE reader=? AND key=?`, ExportReader, key).Scan(&one)
	if err == nil {
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	var closed int
	if err := x.g.db.QueryRowContext(ctx, `SELECT closed FROM issues WHERE id=?`, n).Scan(&closed); err != nil {
		return err
	}
	if closed != 0 {
		return nil
	}
	x.progress(ExportStep{Kind: ExportClose, From: is.ID, Issue: is.ID, To: n, Title: is.Title}, false)
	if x.o.DryRun {
		return nil
	}
	_, err = x.g.Apply(ctx, Change{Actor: x.s.closers[is.ID], Reader: ExportReader, Trigger: key, Ops: []Op{{Kind: OpClose, Issue: n}}})
	return err
}

// setText replaces issue n's title and marked body on the service and
// commits the answer to the mirror (no event: an issue's text has none).
func (g *Forge) setText(ctx context.Context, actor string, n int64, title, body string) error {
	return g.locked(func() error {
		r, err := g.api.setText(ctx, n, title, body)
		if err != nil {
			return err
		}
		_, err = g.commit(ctx, Change{Actor: actor}, []step{{issue: &r}}, nil, true)
		return err
	})
}

// pinLang keeps the first export's language of the bylines, and gives
// it to o for every later one.
func (g *Forge) pinLang(ctx context.Context, o *ExportOptions) error {
	have, err := g.state(ctx, "export_lang")
	if err != nil || have != "" {
		o.Lang = have
		return err
	}
	if o.DryRun || o.Lang == "" {
		return nil
	}
	return g.setState(ctx, g.db, "export_lang", o.Lang)
}
