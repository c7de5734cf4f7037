package compact

import (
	"context"

	"github.com/daokit/daokit/hooks"
)

// runCommand runs a hook command through the hooks package's runner with
// the context as compact JSON on stdin, and reads the context to continue
// with from what it printed: a JSON object that is not a relay context
// skips the hook like any unusable output.
func runCommand(ctx context.Context, hk *hook, c *Context, res hooks.Result) (*Context, hooks.Result) {
	input, _ := c.MarshalJSON() // cannot fail
	out, ran := hk.cmd.Run(ctx, input)
	res.Status, res.Code, res.Reason = ran.Status, ran.Code, ran.Reason
	if ran.Status != hooks.StatusOK {
		return nil, res
	}
	next, err := Parse(out)
	if err != nil {
		res.Status, res.Code, res.Reason = hooks.StatusFailed, hooks.CodeInvalidOutput, err.Error()
		return nil, res
	}
	return next, res
}
