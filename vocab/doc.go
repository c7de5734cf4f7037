// Package vocab declares daokit's vocabulary of stored values once: the
// reason codes, run states, pipeline statuses, health words, next
// actions, ledger operations, control results, step states, lease
// statuses, event types, severities and acceptance criteria that the controller
// writes into the ledger and sends over the relay, and that the window,
// the CLI and the tests read back.
//
// Each value is a typed string, stored and sent as it is (the ledger and
// the Python tool read the same strings), and each has its label in both
// languages under vocab.<kind>.<value> in i18n/locales/vocab.*.toml (the
// control results keep the relay's relay.error.<code>). The controller
// never words a value for a client: it sends the value and its arguments,
// and whoever shows it words it in its reader's language, so that the
// window's language switch reaches everything it shows.
//
// A test walks Kinds and fails on any value without both labels. The
// package imports nothing of daokit but i18n.
package vocab
