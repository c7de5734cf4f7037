// Package termsafe makes untrusted text (an agent's diff, worker output,
// issue titles, event payloads) safe to put on a terminal without hiding
// anything: every byte a terminal would act on instead of drawing is
// written as a visible escape, so what a person reviews is all there is.
//
// One form is used everywhere daokit shows such text, in the window and
// in the CLI:
//
//	\x1b   a C0 control byte (ESC, CR, BEL, backspace, ...) or DEL, and a
//	       byte that is not UTF-8 (a raw 8-bit C1 such as \x9b)
//	\u009b a C1 control encoded in UTF-8, and an invisible format
//	       character: bidi embeddings, overrides and isolates (\u202e),
//	       zero-width spaces, the byte-order mark, line and paragraph
//	       separators, tag characters (\U000e0041)
//
// Only the introducer is replaced: `ESC[1A` reads `\x1b[1A`, an OSC 52
// clipboard write reads `\x1b]52;c;...\x07`, so the sequence's own text
// stays readable and nothing of it is acted on. Tabs and line breaks
// pass (Escape) or become spaces (Line); the zero-width joiner and
// non-joiner pass, because emoji and several scripts need them.
//
// Escaping is idempotent: its output contains nothing it would escape.
// A literal backslash is not escaped, so on a plain terminal the text
// `\x1b` in a source file reads the same as an ESC byte: both are worth a
// reviewer's look. Where colour is at hand, Visit tells them apart (the
// window's changes view draws the escapes it made in the warning tone).
//
// The package imports nothing of daokit's, so that the window (tui) and
// the commands (cmd) share this one implementation.
package termsafe
