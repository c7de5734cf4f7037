package compact

import "context"

// Func is a hook written in Go. It gets a copy of the context, which it
// may change, and returns the context to continue with. An error, a
// panic or a nil context skips the hook. ctx ends at the hook's timeout;
// a Func that returns after it is skipped too, as Go cannot stop it
// earlier.
type Func func(ctx context.Context, c *Context, known Facts) (*Context, error)
