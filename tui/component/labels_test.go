package component

import (
	"testing"

	"github.com/daokit/daokit/i18n"
)

// TestEveryStoredValueHasALabel checks that both catalogs label every
// value of every vocabulary, and that unknown values show raw.
func TestEveryStoredValueHasALabel(t *testing.T) {
	t.Parallel()
	for _, lang := range i18n.Supported() {
		l := NewLabels(i18n.MustNew(lang))
		for kind, values := range Vocabularies() {
			for _, v := range values {
				if l.Get(kind, v) == "" {
					t.Errorf("%s: no label for %s.%s", lang, kind, v)
				}
			}
		}
		if got := l.Or(KindEvent, "FUTURE_TYPE"); got != "FUTURE_TYPE" {
			t.Errorf("%s: unknown value shows %q, want it raw", lang, got)
		}
	}
}

func TestParametricReasons(t *testing.T) {
	t.Parallel()
	zh := NewLabels(i18n.MustNew(i18n.Chinese))
	en := NewLabels(i18n.MustNew(i18n.English))
	tests := []struct {
		code, en, zh string
	}{
		{"NO_OUTPUT_15M", "no output for 15 min", "15 分钟无输出"},
		{"NO_OUTPUT_1H", "no output for 1 h", "1 小时无输出"},
		{"NO_OUTPUT_45S", "no output for 45 s", "45 秒无输出"},
		{"HEARTBEAT_RUNNING_NO_ACTION", "heartbeat says worker alive: no action", "心跳为“运行中”：无需处理"},
		{"INVALID_LEASE_EXPIRED_CONTROLLER_LEASE", "invalid lease: controller lease expired", "租约无效：控制器租约已过期"},
	}
	for _, tt := range tests {
		if got := en.Get(KindReason, tt.code); got != tt.en {
			t.Errorf("en %s: %q, want %q", tt.code, got, tt.en)
		}
		if got := zh.Get(KindReason, tt.code); got != tt.zh {
			t.Errorf("zh %s: %q, want %q", tt.code, got, tt.zh)
		}
	}
	if got := en.Get(KindStep, "dispatched:worker"); got != "running" {
		t.Errorf("step state with a lane: %q", got)
	}
}
