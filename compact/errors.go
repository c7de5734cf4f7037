package compact

import "github.com/daokit/daokit/compact/internal/rawjson"

// SyntaxError reports input that is not JSON: what is wrong (Kind) and at
// which byte (Offset). Parse and Context.Append wrap it.
type SyntaxError = rawjson.SyntaxError

// SyntaxKind says what is wrong with invalid JSON.
type SyntaxKind = rawjson.ErrorKind

// Kinds of SyntaxError.
const (
	// SyntaxEnd means the input ends inside a value.
	SyntaxEnd = rawjson.ErrEnd
	// SyntaxChar means a character stands where JSON does not allow it.
	SyntaxChar = rawjson.ErrChar
	// SyntaxTrailing means more data follows the document's one value.
	SyntaxTrailing = rawjson.ErrTrailing
	// SyntaxDepth means arrays and objects nest deeper than MaxDepth.
	SyntaxDepth = rawjson.ErrDepth
)

// MaxDepth is how deeply a context's arrays and objects may nest.
const MaxDepth = rawjson.MaxDepth
