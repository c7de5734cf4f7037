package main

import (
	"strconv"

	"github.com/daokit/daokit/ledger"
	"github.com/spf13/cobra"
)

// checkIDFlags refuses id flags (name, value pairs) that do not match
// ledger.IDPattern, before anything is sent or started; empty values
// were not given and pass.
func (a *app) checkIDFlags(c *cobra.Command, pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if v := pairs[i+1]; v != "" && !ledger.ValidID(v) {
			return a.usage(c, a.t("cli.error.invalid_id", "Flag", pairs[i], "Value", strconv.Quote(v)))
		}
	}
	return nil
}
