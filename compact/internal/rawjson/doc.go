// Package rawjson reads and writes JSON without decoding it into Go values.
//
// The relay context of daokit can hold a hundred thousand entries, and
// compaction has to finish in a few tens of milliseconds. Decoding that into
// maps and re-encoding it with encoding/json costs several times the budget,
// so compaction works on the raw bytes instead: Compact validates a document
// once and strips its whitespace; every other function of this package then
// walks such validated, compact JSON without checking it again.
//
// Validating and unquoting are jsontext's work (the package behind
// encoding/json/v2); once jsontext has accepted a document, dropping its
// whitespace is one copy. The walkers stay here: over compact JSON
// already validated they are a boundary scan that validates nothing
// again. Reading every member of the 100,000 entries of the benchmark
// context took 18-22 ms with Members and 69-90 ms with a reused
// jsontext.Decoder, a difference that is most of the compaction budget.
//
// Writers produce the form of Python's json.dumps with ensure_ascii=True,
// which is how the Python DAOKit writes its files: non-ASCII text as
// lowercase \uXXXX escapes, the short escapes \" \\ \n \r \t \b \f, other
// control characters and DEL as \u00XX. Numbers keep their textual form.
// Duplicate object keys collapse the way Python's json.loads collapses them:
// the last value wins, at the position of the first.
package rawjson
