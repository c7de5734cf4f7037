package outbox

import (
	"strconv"
	"strings"
)

// exported records what the marker of a body daokit posted says of an
// export: the triggers answered on the old outbox (with the number and
// id the service gave), and, for the export's own posts, which item of
// the old outbox this is. Both come from the service, so a mirror
// rebuilt after the export knows them again.
func (in *ingester) exported(m marker, issue, comment, ev int64) error {
	for _, a := range m.Answered {
		key := strings.NewReplacer("{issue}", strconv.FormatInt(issue, 10), "{comment}", strconv.FormatInt(comment, 10)).Replace(a.Trigger)
		if _, err := in.tx.ExecContext(in.ctx, `INSERT INTO triggers(reader, key, event) VALUES(?,?,?) ON CONFLICT DO NOTHING`, a.Reader, key, ev); err != nil {
			return err
		}
	}
	if m.Reader != ExportReader || m.Trigger == "" {
		return nil
	}
	_, err := in.tx.ExecContext(in.ctx, `INSERT INTO gh_exported(origin, issue, comment) VALUES(?,?,?) ON CONFLICT DO NOTHING`, m.Trigger, issue, comment)
	return err
}
