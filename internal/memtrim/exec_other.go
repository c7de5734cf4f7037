//go:build !linux

package memtrim

// DropExecutablePages does nothing outside Linux (see the Linux one).
func DropExecutablePages() (int64, error) { return 0, nil }
