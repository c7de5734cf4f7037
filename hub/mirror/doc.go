// Package mirror is the consuming side of a root on a daokit hub (issue
// 31): it rebuilds a root's folder on another host from the root's ledger
// stream and document bucket (hub/naming), so that `daokit status`,
// `daokit watch` and the window read it as they read a leader's own
// folder. `daokit mirror` runs it; remote windows build on it; the leader
// (hub/leader) uses its pieces to catch its own folder up when it takes
// a root over from another host.
//
// The folder it writes is <dir>/state/ as the leader's: events.jsonl
// holds message n of the stream as its line n, byte for byte (the leader
// publishes one message per line, the same bytes), appended in order and
// fsynced before the next batch is read; each document is replaced
// atomically (temporary file, fsync, rename, fsync of the folder), so a
// reader never sees half of one. Because line n is message n, the folder
// itself says where to resume: a mirror killed at any point starts again
// from the number of whole lines it holds, after checking that its last
// line is the stream's message of that number (a folder of another root,
// or a stream that was replaced, is refused rather than extended).
//
// A mirror is read-only for the root: it never writes the hub, and it
// takes its own lock (state/mirror.lock), not the controller's, so that
// two mirrors never interleave their appends into one folder.
package mirror
