package config

// Runs holds the policy switches of the run coordinator (seed 004: the
// shared coordinator stays the same for every agent kind; what differs
// is configuration).
type Runs struct {
	// AbandonWaitingOnLeave drops every run still waiting for its lane
	// when the person leaves: the last observer (a window, the dashboard,
	// `daokit run`, `daokit send --wait`) that watched the controller
	// disconnects. A
	// dropped run ends FAILED with RUN_ABANDONED and never starts, as
	// with /abandon. Default false: a waiting run waits for its turn
	// whether anyone watches or not.
	AbandonWaitingOnLeave bool `toml:"abandon_waiting_on_leave"`
}

// decodeRuns reads the [runs] table.
func decodeRuns(t *table, c *Config) {
	if s := t.sub("runs"); s != nil {
		s.boolean("abandon_waiting_on_leave", &c.Runs.AbandonWaitingOnLeave)
		s.done()
	}
}
