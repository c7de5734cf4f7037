package worker

import "unicode/utf8"

// cutBytes cuts b to at most max bytes without splitting a UTF-8
// sequence.
func cutBytes(b []byte, max int) []byte {
	if len(b) <= max {
		return b
	}
	cut := max
	// Step back over continuation bytes to the start of the rune that
	// straddles the limit.
	for cut > 0 && cut > max-utf8.UTFMax && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return b[:cut]
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b, left
// by a cut at a byte limit.
func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}
