package config

import (
	"strings"
	"testing"
)

// The rollback switch and the compaction thresholds load from the file,
// default to the shipped policy, and every value that cannot work is
// listed at once with its key.
func TestRelayPolicyAndCompactThresholds(t *testing.T) {
	c, err := Parse(nil, "daokit.toml", "/r")
	if err != nil {
		t.Fatal(err)
	}
	if c.Relay.Policy != RelayPolicyOn || c.Compact != DefaultCompact() {
		t.Errorf("defaults: %+v %+v", c.Relay, c.Compact)
	}
	c, err = Parse([]byte("[relay]\npolicy = \"off\"\n[compact]\nmax_entries = 0\nmax_bytes = 1024\nrepeated_status = 2\n"), "daokit.toml", "/r")
	if err != nil {
		t.Fatal(err)
	}
	if c.Relay.Policy != RelayPolicyOff || c.Compact != (Compact{MaxEntries: 0, MaxBytes: 1024, RepeatedStatus: 2}) {
		t.Errorf("loaded: %+v %+v", c.Relay, c.Compact)
	}
	_, err = Parse([]byte("[relay]\npolicy = \"Off\"\n[compact]\nmax_entries = -1\nmax_bytes = -2\nrepeated_status = 1\nmax_lines = 3\n"), "daokit.toml", "/r")
	got := AsErrors(err)
	want := []string{
		`relay.policy = "Off"`,
		"compact.max_entries = -1 is too small: the minimum is 0",
		"compact.max_bytes = -2 is too small: the minimum is 0",
		"compact.repeated_status = 1 is too small: the minimum is 2",
		"compact.max_lines",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(got), len(want), err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("no problem saying %q in:\n%v", w, err)
		}
	}
}
