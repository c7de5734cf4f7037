package relay

import (
	"errors"
	"strings"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/vocab"
)

// Describe returns what err means for a person, in loc's language: the
// catalog text of its code (see CodeOf), with the detail filled in. The
// window and `daokit send` show this; logs keep err.Error().
func Describe(loc *i18n.Localizer, err error) string {
	if err == nil {
		return ""
	}
	var fa *ForbiddenActionError
	if errors.As(err, &fa) {
		return loc.T("relay.error.forbidden_action", "Action", fa.Action)
	}
	code, detail := CodeOf(err), detailOf(err)
	if code == CodeForbiddenAction {
		return loc.T("relay.error.forbidden_action", "Action", detail)
	}
	if r := vocab.Result(code); r.Known() {
		// The controller's own answers: their detail may be a stored
		// word (a pipeline status, a run state), worded here too.
		return r.Label(loc, detail)
	}
	id := "relay.error." + string(code)
	if s := loc.T(id, "Detail", detail); s != id {
		return s
	}
	// A code of the controller's own that no catalog knows.
	return strings.TrimSpace(loc.T("relay.error.other", "Code", string(code), "Detail", detail))
}
