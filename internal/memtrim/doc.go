// Package memtrim gives a resident process the memory its start-up left
// behind, once it has settled: a Lead runs for days, idle most of the
// time, in ten copies, and what it needs then is a fraction of what it
// touched while it started.
package memtrim
