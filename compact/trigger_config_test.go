package compact

import (
	"testing"

	"github.com/daokit/daokit/config"
)

// daokit.toml's defaults are compact's shipped thresholds, and what the
// configuration accepts is what Validate accepts.
func TestConfigThresholdsAreTheShippedOnes(t *testing.T) {
	if got := TriggersOf(config.DefaultCompact()); got != DefaultTriggers() {
		t.Errorf("config's defaults %+v, compact's %+v", got, DefaultTriggers())
	}
	for _, c := range []config.Compact{{MaxEntries: -1}, {MaxBytes: -1}, {RepeatedStatus: 1}, {RepeatedStatus: -1}, {}, {RepeatedStatus: 2}} {
		full := config.DefaultConfig()
		full.Compact = c
		if cfgErr, trigErr := full.Validate(), TriggersOf(c).Validate(); (cfgErr == nil) != (trigErr == nil) {
			t.Errorf("%+v: config says %v, compact says %v", c, cfgErr, trigErr)
		}
	}
}
