// Package ledger reads and writes daokit's durable state under
// <root>/state/: the four files of the DAOKit contracts (pipeline_state.json,
// heartbeat_status.json, process_leases.json, events.jsonl) plus the
// handoff package.
//
// Reading is tolerant: fields the contracts do not know (the Python DAOKit
// writes some) are kept in order in Extra, and a file of the wrong shape is
// reported with the field that is wrong, never a panic. Writing is strict:
// everything daokit writes validates against the schemas, and is encoded
// byte for byte the way the Python tool encodes it (key order, indent-2
// documents, compact JSON lines, non-ASCII escaped, Python isoformat
// timestamps), so that either tool reads the other's ledger.
//
// The Store is the single writer of a root, enforced by an OS file lock.
// It replaces documents atomically (temp file, fsync, rename, fsync of the
// folder) and appends events with one write(2) and one fsync each; Open
// repairs what a crash left behind. Init creates the layout of
// `daokit init` without ever overwriting.
//
// Readers never lock and never block it. LoadSnapshot reads the documents
// and reports each file's problem (missing, empty, invalid) so that a
// window can keep the last good values on screen. TailEvents reads the
// last events backwards from the end of events.jsonl, a Follower reads
// what is appended after an offset, and Watch combines fsnotify on the
// state folder, a stat poll and a Follower into coalesced Changes. None of
// them costs more as the history grows.
//
// ledger imports nothing else of daokit's.
package ledger
