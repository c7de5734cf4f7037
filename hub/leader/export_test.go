package leader

// HoldAppends holds the lock a publication holds while it waits for the
// hub's acknowledgements (up to the request timeout when one is lost),
// until release.
func (l *Leader) HoldAppends() (release func()) {
	l.mu.Lock()
	return l.mu.Unlock
}
