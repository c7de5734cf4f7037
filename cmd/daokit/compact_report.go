package main

import (
	"fmt"
	"strings"

	"github.com/daokit/daokit/compact"
	"github.com/daokit/daokit/ledger"
)

// writeCompactJSON prints the report as JSON on stderr, with the bytes
// read and written.
func (a *app) writeCompactJSON(rep compact.Report, in, out int) error {
	doc := struct {
		compact.Report
		InputBytes  int `json:"input_bytes"`
		OutputBytes int `json:"output_bytes"`
	}{rep, in, out}
	data, err := ledger.MarshalDocument(doc)
	if err != nil {
		return fmt.Errorf("encode compact report: %w", err)
	}
	_, err = a.io.err.Write(data)
	return err
}

// writeCompactTable prints the report for people on stderr: one row per
// list, the reasons, the keep-set changes and the sizes.
func (a *app) writeCompactTable(rep compact.Report, in, out int) {
	headers := []string{
		a.t("cli.compact.report.col_list"), a.t("cli.compact.report.col_before"), a.t("cli.compact.report.col_kept"),
		a.t("cli.compact.report.col_dropped"), a.t("cli.compact.report.col_merged"),
	}
	row := func(name string, l compact.ListReport) []string {
		return []string{name, fmt.Sprint(l.Before), fmt.Sprint(l.Kept), fmt.Sprint(l.Dropped), fmt.Sprint(l.Merged)}
	}
	var rows [][]string
	for _, l := range rep.Lists {
		rows = append(rows, row(l.List.String(), l))
	}
	total := rep.Total()
	rows = append(rows, row(a.t("cli.compact.report.total"), total))
	w := a.io.err
	writeTable(w, "", headers, rows)
	var dropped, merged []string
	for _, rc := range total.Reasons {
		item := a.t("cli.compact.reason."+rc.Reason.String(), "Count", rc.Count)
		if rc.Reason.Merged() {
			merged = append(merged, item)
		} else {
			dropped = append(dropped, item)
		}
	}
	sep := a.t("cli.compact.report.list_separator")
	if len(dropped) > 0 {
		fmt.Fprintln(w, a.t("cli.compact.report.dropped_by", "Reasons", strings.Join(dropped, sep)))
	}
	if len(merged) > 0 {
		fmt.Fprintln(w, a.t("cli.compact.report.merged_by", "Reasons", strings.Join(merged, sep)))
	}
	if len(rep.Relay.Filled) > 0 {
		fmt.Fprintln(w, a.t("cli.compact.report.filled", "Fields", strings.Join(rep.Relay.Filled, sep)))
	}
	if len(rep.Relay.Dropped) > 0 {
		fmt.Fprintln(w, a.t("cli.compact.report.relay_dropped", "Fields", strings.Join(rep.Relay.Dropped, sep)))
	}
	if !rep.Changed() {
		fmt.Fprintln(w, a.t("cli.compact.report.unchanged"))
	}
	fmt.Fprintln(w, a.t("cli.compact.report.size", "Before", rep.BytesBefore, "After", rep.BytesAfter,
		"Saved", savedPercent(rep.BytesBefore, rep.BytesAfter)))
	fmt.Fprintln(w, a.t("cli.compact.report.io", "In", in, "Out", out))
}

// savedPercent is how much smaller after is than before, in whole percent.
func savedPercent(before, after int) int {
	if before <= 0 || after >= before {
		return 0
	}
	return (before - after) * 100 / before
}
