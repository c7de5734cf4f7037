package hub

// SyncAlways reports whether the running JetStream fsyncs every write
// (it always should: the test checks, not trusts). Only hub_test
// asks, so it lives in a test file of the package.
func (h *Hub) SyncAlways() bool {
	c := h.srv.JetStreamConfig()
	return c != nil && c.SyncAlways
}
