package outbox

import (
	"context"
	"database/sql"
	"errors"
)

// source is what Export reads of the old outbox.
type source struct {
	issues    []Issue
	comments  map[int64][]Comment
	closers   map[int64]string
	byIssue   map[int64][]answered
	byComment map[int64][]answered
}

func readSource(ctx context.Context, src *SQLite) (source, error) {
	s := source{comments: map[int64][]Comment{}, closers: map[int64]string{}}
	var err error
	if s.issues, err = src.List(ctx, Query{}); err != nil {
		return s, err
	}
	isIssue, isComment, fieldOf := map[int64]bool{}, map[int64]bool{}, map[string]int64{}
	for _, is := range s.issues {
		isIssue[is.ID] = true
		cs, err := src.Comments(ctx, is.ID)
		if err != nil {
			return s, err
		}
		s.comments[is.ID] = cs
		for _, c := range cs {
			isComment[c.ID] = true
			if t := ParseMailbox(c.Body).Fields[FieldTrigger]; t != "" && fieldOf[t] == 0 {
				fieldOf[t] = c.ID
			}
		}
		if is.Closed {
			// Who closed it: the mirror's event is theirs.
			var who string
			err := src.db.QueryRowContext(ctx, `SELECT actor FROM events WHERE issue=? AND kind=? ORDER BY id DESC LIMIT 1`, is.ID, string(EventClosed)).Scan(&who)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return s, err
			}
			if who == "" {
				who = is.Author
			}
			s.closers[is.ID] = who
		}
	}
	rows, err := src.db.QueryContext(ctx, `SELECT reader, key FROM triggers ORDER BY reader, key`)
	if err != nil {
		return s, err
	}
	defer rows.Close()
	var ts []answered
	for rows.Next() {
		var t answered
		if err := rows.Scan(&t.Reader, &t.Trigger); err != nil {
			return s, err
		}
		ts = append(ts, t)
	}
	if err := rows.Err(); err != nil {
		return s, err
	}
	var first int64
	if len(s.issues) > 0 {
		first = s.issues[0].ID
	}
	s.byIssue, s.byComment = answeredOf(ts, isIssue, isComment, fieldOf, first)
	return s, nil
}
