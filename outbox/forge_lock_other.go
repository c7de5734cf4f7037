//go:build !unix

package outbox

// fileLock is process-local where flock is missing: one daokit process
// per mirror there.
type fileLock struct{}

func openFileLock(string) (*fileLock, error) { return &fileLock{}, nil }

func (l *fileLock) lock() error { return nil }

func (l *fileLock) unlock() {}

func (l *fileLock) close() error { return nil }
