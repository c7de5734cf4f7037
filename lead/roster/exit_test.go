package roster

import (
	"strings"
	"testing"

	"github.com/daokit/daokit/i18n"
)

// Every exit reason a Lead or the controller writes has words in every
// language; a reason from another daokit version is shown as its code,
// never as a catalog key.
func TestExitReasonsAreWorded(t *testing.T) {
	for _, lang := range i18n.Supported() {
		loc := i18n.MustNew(lang)
		for _, reason := range exitReasons {
			text := Exit{Reason: reason, Detail: "d", Repo: "o/r", API: "https://api"}.Text(loc.T)
			if text == "" || strings.HasPrefix(text, "team.") {
				t.Errorf("%s: %s has no words: %q", lang, reason, text)
			}
		}
		if got := (Exit{Reason: "LEAD_FROM_ELSEWHERE", Detail: "why"}).Text(loc.T); got != "LEAD_FROM_ELSEWHERE: why" {
			t.Errorf("%s: unknown reason shown as %q", lang, got)
		}
	}
}
