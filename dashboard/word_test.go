package dashboard

import (
	"strings"
	"testing"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/vocab"
)

// TestStoredCodesAreWordedInThePagesLanguage: a status, a health word and
// a reason code read as words of the page's language with the code beside
// them; what the vocabulary does not know is shown as stored.
func TestStoredCodesAreWordedInThePagesLanguage(t *testing.T) {
	for _, lang := range []string{"en", "zh-CN"} {
		loc, err := i18n.New(lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, code := range []string{"BLOCKED", "STALE", string(vocab.ReasonMaxIterations)} {
			got := word(loc, code)
			want := vocab.Word(loc, code)
			if want == code || !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "("+code+")") {
				t.Errorf("%s: %s reads %q, want %q with the code beside it", lang, code, got, want)
			}
		}
		if got := word(loc, "SOMETHING_NEW"); got != "SOMETHING_NEW" {
			t.Errorf("%s: an unknown code reads %q, want it as stored", lang, got)
		}
		if got := word(loc, ""); got != "—" {
			t.Errorf("%s: no code reads %q, want a dash", lang, got)
		}
	}
}
