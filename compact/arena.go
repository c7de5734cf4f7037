package compact

// arena hands out room for rewritten entries in large chunks, so that a
// hundred thousand rewrites cost a few hundred allocations. Written
// entries never move.
type arena struct{ buf []byte }

const arenaChunk = 64 << 10

// begin returns an empty slice whose spare capacity is the free part of
// the current chunk; append the entry to it and pass the result to end.
func (a *arena) begin() []byte {
	if cap(a.buf)-len(a.buf) < arenaChunk/16 {
		a.buf = make([]byte, 0, arenaChunk)
	}
	return a.buf[len(a.buf):len(a.buf)]
}

// end claims what was appended to the slice from begin. An entry that
// outgrew the chunk has been moved by append to memory of its own and
// claims nothing.
func (a *arena) end(entry []byte) []byte {
	if cap(entry) == cap(a.buf)-len(a.buf) {
		a.buf = a.buf[:len(a.buf)+len(entry)]
	}
	return entry[:len(entry):len(entry)]
}
