package memtrim

import "runtime/debug"

// Settle is called once, when the process has finished starting: the
// garbage of its start-up goes back to the operating system (a forced
// collection, then every free page of the heap released, which the
// runtime's background scavenger would otherwise do slowly, and only down
// to the heap goal), and so do the pages of the executable it ran only to
// start (see DropExecutablePages). It reports how many bytes of the
// executable's pages it let go.
func Settle() int64 {
	debug.FreeOSMemory()
	n, _ := DropExecutablePages()
	return n
}
