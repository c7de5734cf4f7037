package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/daokit/daokit/i18n"
)

// TestCallbacksLoad: [[workflow.callbacks]] load with their defaults.
func TestCallbacksLoad(t *testing.T) {
	c, err := Parse([]byte(`[[workflow.callbacks]]
name = "notify"
command = ["./notify.sh", "--quiet"]

[[workflow.callbacks]]
name = "debug"
kind = "debug"
events = "all"
queue = 64
lines = false
`), "daokit.toml", "/r")
	if err != nil {
		t.Fatal(err)
	}
	cbs := c.Workflow.Callbacks
	if len(cbs) != 2 {
		t.Fatalf("%d callbacks, want 2", len(cbs))
	}
	if cbs[0].Type() != CallbackCommand || cbs[0].Listens() != CallbackEventsRun || cbs[0].Queue != DefaultCallbackQueue ||
		cbs[0].Dir != "." || !cbs[0].Lines || !slices.Equal(cbs[0].Command, []string{"./notify.sh", "--quiet"}) {
		t.Errorf("command callback: %+v", cbs[0])
	}
	if cbs[1].Type() != CallbackDebug || cbs[1].Listens() != CallbackEventsAll || cbs[1].Queue != 64 || cbs[1].Lines {
		t.Errorf("debug callback: %+v", cbs[1])
	}
}

// TestCallbacksRefused: every mistake of a callback is reported, with a
// message in both languages (what daokit check prints).
func TestCallbacksRefused(t *testing.T) {
	_, err := Parse([]byte(`[[workflow.callbacks]]
name = "a"

[[workflow.callbacks]]
name = "a"
kind = "debug"
command = ["x"]
events = "some"
queue = 0

[[workflow.callbacks]]
name = "b c"
kind = "webhook"
command = ["x"]
queue = 100000
env = ["NOEQUALS"]
`), "daokit.toml", "/r")
	want := []struct {
		code Code
		key  string
	}{
		{CodeRequired, "workflow.callbacks[0].command"},
		{CodeDuplicate, "workflow.callbacks[1].name"},
		{CodeCallbackCommand, "workflow.callbacks[1].command"},
		{CodeEnum, "workflow.callbacks[1].events"},
		{CodeTooSmall, "workflow.callbacks[1].queue"},
		{CodeName, "workflow.callbacks[2].name"},
		{CodeEnum, "workflow.callbacks[2].kind"},
		{CodeEnv, "workflow.callbacks[2].env[0]"},
		{CodeTooLarge, "workflow.callbacks[2].queue"},
	}
	got := AsErrors(err)
	for _, w := range want {
		found := false
		for _, e := range got {
			if e.Code == w.code && e.Key == w.key {
				found = true
				for _, lang := range []string{"en", "zh-CN"} {
					if msg := e.Localize(i18n.MustNew(lang)); msg == "" || strings.Contains(msg, "config.error.") {
						t.Errorf("%s %s: no %s message", w.code, w.key, lang)
					}
				}
			}
		}
		if !found {
			t.Errorf("no %s at %s in %v", w.code, w.key, err)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d problems, want %d: %v", len(got), len(want), err)
	}
}
