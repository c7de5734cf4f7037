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
		for kind, values := range vocabs() {
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
	if got := en.Get(KindStep, "failed:max_iterations_reached"); got != "failed: max iterations reached" {
		t.Errorf("step state with a reason: %q", got)
	}
	if got := zh.Get(KindStep, "failed:max_iterations_reached"); got != "失败：已达最大迭代次数" {
		t.Errorf("zh step state with a reason: %q", got)
	}
}

// TestKindsAreVocab: the kinds the window's code names are vocab's
// catalogs, so that Get(KindReason, …) finds the labels vocab declares.
func TestKindsAreVocab(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{KindPipeline, KindHeartbeat, KindLease, KindSeverity, KindEvent, KindNext,
		KindReason, KindStep, KindRun, KindController, KindOperation, KindCriterion} {
		if len(vocabs()[kind]) == 0 {
			t.Errorf("kind %s is not a vocab catalog", kind)
		}
	}
}

// vocabs returns every labelled kind with its values, for tests
// that check the catalogs.
func vocabs() map[string][]string {
	out := make(map[string][]string, len(vocabularies))
	for k, v := range vocabularies {
		out[k] = append([]string(nil), v...)
	}
	return out
}
