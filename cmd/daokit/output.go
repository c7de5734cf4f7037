package main

import (
	"github.com/daokit/daokit/ledger"
)

// writeJSON prints v as the Python tool prints command JSON: indent 2,
// insertion order, non-ASCII escaped.
func (a *app) writeJSON(v any) error {
	data, err := ledger.MarshalDocument(v)
	if err != nil {
		return err
	}
	_, err = a.io.out.Write(data)
	return err
}

// orNone renders an absent id as Python prints None.
func orNone(s string) string {
	if s == "" {
		return "None"
	}
	return s
}

// orDash renders an absent value as the replay listing does.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
