package relay

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/daokit/daokit/i18n"
)

func TestDescribe(t *testing.T) {
	t.Parallel()
	errs := []error{
		&Error{Code: CodeBadVersion, Detail: "2"},
		&Error{Code: CodeMalformed},
		&Error{Code: CodeTooLarge, Detail: "1048576"},
		&Error{Code: CodeUnknownType, Detail: "frob"},
		&Error{Code: CodeForbiddenPeer},
		&Error{Code: CodeForbiddenAction, Detail: "execute"},
		&Error{Code: CodeBadRequest, Detail: "text"},
		&Error{Code: CodeInternal, Detail: "disk full"},
		&Error{Code: CodeUnavailable},
		&Error{Code: CodeWrongRoot, Detail: "/elsewhere"},
		ErrClosed,
		fmt.Errorf("relay: ping x: %w", context.DeadlineExceeded),
		Guard("takeover"),
		Guard(""),
		&Error{Code: "unknown_run", Detail: "R9"},
	}
	for _, lang := range i18n.Supported() {
		loc := i18n.MustNew(lang)
		for _, err := range errs {
			got := Describe(loc, err)
			if got == "" || strings.Contains(got, "relay.error.") {
				t.Errorf("%s: Describe(%v) = %q, want a catalog text", lang, err, got)
			}
			if d := detailOf(err); d != "" && !strings.Contains(got, d) {
				t.Errorf("%s: Describe(%v) = %q, want the detail %q in it", lang, err, got, d)
			}
		}
	}
	en := i18n.MustNew(i18n.English)
	if got, want := Describe(en, Guard(" execute ")), Guard("execute").Error(); got != want {
		t.Errorf("English denial %q, want the Python text %q", got, want)
	}
	if got := Describe(i18n.MustNew(i18n.Chinese), Guard("takeover")); !strings.Contains(got, "中继模式禁止") || !strings.Contains(got, "takeover") {
		t.Errorf("Chinese denial %q", got)
	}
	if Describe(en, nil) != "" {
		t.Errorf("Describe(nil) is not empty")
	}
}
