// Package config reads daokit.toml, the optional settings file at the root
// of a ledger: the worker lanes, the workflow an instruction becomes, the
// heartbeat and lease timings, the restart policy, the controller's idle
// exit and the external hooks.
//
// A root without daokit.toml runs on DefaultConfig: one lane "worker" that
// runs the built-in simulated agent, and a one-step workflow on it. A file
// overrides only what it names; a [[lanes]] list replaces the default lanes
// as a whole.
//
// Durations are TOML strings with a unit ("500ms", "45s", "2m", "1h").
// Every problem found while loading or validating is an *Error with a
// stable Code, the key, the value and what was wanted, so that the CLI and
// the window can say it in the reader's language (see Error.Localize).
// Loading reports all problems at once, not only the first.
//
// The package only reads and checks: the controller acts on the values, and
// the hooks package runs the hooks described by HookSpecs.
package config
