// Package i18n holds daokit's message catalogs (English and Simplified
// Chinese, generated into the binary as Go data) and picks the language a
// person reads.
//
// Every string a person sees in the CLI or the window comes from here. Values
// stored on disk (event types, statuses, field names) are never translated;
// they are labelled with translated text instead.
//
// Catalogs live in locales/<area>.<lang>.toml. Each area (cli, tui, ledger,
// relay, controller, heal, compact) has one file per language with the same
// message ids, so that parallel work on different areas never edits the same
// file. A test checks that both languages carry the same ids and the same
// template variables, and that every message has a description.
package i18n

//go:generate go run ./internal/gencatalog
