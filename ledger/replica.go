package ledger

// Replica copies a root's writes to another place before or as they
// reach the files: a daokit hub's stream and key-value bucket (issue 31,
// hub/leader), so that another host can rebuild the root and a deposed
// writer is refused. It lives at the store, not at its callers, because
// the store appends lines of its own (notes on documents, a finished
// commit): every line of events.jsonl passes here, in file order.
type Replica interface {
	// Append is given the lines about to be appended (whole lines, each
	// ending in '\n', as EncodeLines made them), before they are written.
	// It returns once the replica holds them; an error refuses the
	// append: nothing is written, and the caller hears the error. Calls
	// are serialised, in file order.
	Append(lines []byte) error
	// Document is told that state/<name> was replaced with data. It must
	// not block: the document is written already.
	Document(name string, data []byte)
}
