package memtrim

// Settle is called once, when the process has finished starting: the
// pages of the executable it ran only to start go back (see
// DropExecutablePages). It reports how many bytes of them it let go.
//
// The heap is left to the runtime: forcing its start-up garbage back at
// once (debug.FreeOSMemory) was measured to buy nothing that lasts, as
// the heap grows back to its goal (4 MB, GOGC=100) within the next
// minutes of an idle Lead's passes, for 3 to 7 ms of CPU.
func Settle() int64 {
	n, _ := DropExecutablePages()
	return n
}
