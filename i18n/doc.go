// Package i18n holds daokit's message catalogs (English and Simplified
// Chinese, generated into the binary as Go data) and picks the language a
// person reads.
//
// Every string a person sees in the CLI or the window comes from here. Values
// stored on disk (event types, statuses, field names) are never translated;
// they are labelled with translated text instead.
//
// Catalogs live in locales/<area>.<lang>.toml. Each area (cli, tui, ledger,
// relay, controller, heal, compact, vocab) has one file per language with the same
// message ids, so that parallel work on different areas never edits the same
// file. A test checks that both languages carry the same ids and the same
// template variables, and that every message has a description.
//
// go generate turns the catalogs into Go data (catalog_<area>_gen.go: one
// sorted slice of go-i18n messages per language of that area; and
// catalog_gen.go, which lists the areas), so the binary parses no TOML at
// start. A test renders them again and compares. One generated file per
// area, without a digest line, means two branches that change strings
// merge cleanly, as their TOML files do. go-i18n renders the messages: on the first message of
// a language, a go-i18n bundle is made holding that language alone, and
// each message joins it the first time it is rendered, since a command
// shows a few dozen of the catalog's hundreds. English is loaded next to
// another language only when a message is missing from it: the catalogs
// carry the same ids, so that happens only with an unknown id, which then
// shows as the id itself.
package i18n

//go:generate go run ./internal/gencatalog
