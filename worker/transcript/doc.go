// Package transcript is what a worker said, decoded, and how it is named
// for a person: the output streams, the events that the decoders of each
// agent kind (daokit's protocol, Claude Code, Codex) find in a line, the
// records the worker runtime hands on, and their translated labels.
//
// It runs no process: the window imports it to label output lines, and
// the worker runtime (package worker) to decode what its children print.
package transcript
