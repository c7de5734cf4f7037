package main

import (
	"errors"
	"io/fs"

	"github.com/daokit/daokit/bundle"
	"github.com/spf13/cobra"
)

// bundleFlags are the Python tool's bundle options, with its defaults.
type bundleFlags struct {
	root, sourceDir, bundleRoot, summaryJSON string
	generate, review, reverify, asJSON       bool
}

// newBundleCmd is `daokit bundle`: the Python DAOKit's release evidence
// bundle, made, reviewed and re-verified the same way (same layout, same
// summary fields and hashes, same exit codes).
func newBundleCmd(a *app) *cobra.Command {
	var o bundleFlags
	c := a.command("bundle", "bundle.cli.summary", func(c *cobra.Command, _ []string) error { return a.runBundle(c, o) })
	f := c.Flags()
	f.StringVar(&o.root, "root", ".", "bundle.cli.flag.root")
	f.BoolVar(&o.generate, "generate", false, "bundle.cli.flag.generate")
	f.BoolVar(&o.review, "review", false, "bundle.cli.flag.review")
	f.BoolVar(&o.reverify, "reverify", false, "bundle.cli.flag.reverify")
	f.StringVar(&o.sourceDir, "source-dir", bundle.AnchorSubpath, "bundle.cli.flag.source_dir")
	f.StringVar(&o.bundleRoot, "bundle-root", ".artifacts/evidence-bundles/latest", "bundle.cli.flag.bundle_root")
	f.StringVar(&o.summaryJSON, "summary-json", ".artifacts/evidence-bundles/latest/summary.json", "bundle.cli.flag.summary_json")
	f.BoolVar(&o.asJSON, "json", false, "cli.flag.json")
	return c
}

// mode is the one mode flag given, or a usage error naming the problem
// (argparse's required mutually exclusive group).
func (o bundleFlags) mode(a *app, c *cobra.Command) (string, error) {
	var given []string
	for _, m := range []struct {
		on   bool
		name string
	}{{o.generate, "--generate"}, {o.review, "--review"}, {o.reverify, "--reverify"}} {
		if m.on {
			given = append(given, m.name)
		}
	}
	switch len(given) {
	case 0:
		return "", a.usage(c, a.t("bundle.error.no_mode"))
	case 1:
		return given[0], nil
	}
	return "", a.usage(c, a.t("bundle.error.two_modes", "First", given[0], "Second", given[1]))
}

func (a *app) runBundle(c *cobra.Command, o bundleFlags) error {
	mode, err := o.mode(a, c)
	if err != nil {
		return err
	}
	dir, err := absRoot(o.root)
	if err != nil {
		return failf(bundle.CodeFailed, err.Error())
	}
	opts := bundle.Options{Root: dir, SourceDir: o.sourceDir, BundleRoot: o.bundleRoot, SummaryJSON: o.summaryJSON}
	var (
		summary         any
		workflow        string
		status          string
		base, anchor    string
		reverifyDetails *bundle.ReverifySummary
	)
	switch mode {
	case "--generate":
		s, err := bundle.Generate(a.ctx, opts)
		if err != nil {
			return a.bundleError(err)
		}
		summary, workflow, status, base, anchor = s, s.Workflow, s.Status, s.BundleRoot, s.AnchorPath
	case "--review":
		s, err := bundle.Review(a.ctx, opts)
		if err != nil {
			return a.bundleError(err)
		}
		summary, workflow, status, base, anchor = s, s.Workflow, s.Status, s.BundleRoot, s.AnchorPath
	default:
		s, err := bundle.Reverify(a.ctx, opts)
		if err != nil {
			return a.bundleError(err)
		}
		summary, workflow, status, base, anchor = s, s.Workflow, s.Status, s.BundleRoot, s.AnchorPath
		reverifyDetails = &s
	}
	if o.asJSON {
		data, err := bundle.Encode(summary)
		if err != nil {
			return err
		}
		if _, err := a.io.out.Write(data); err != nil {
			return err
		}
	} else {
		// The Python tool's result lines: data for scripts, not prose.
		a.printf("workflow=%s\nstatus=%s\nbundle_root=%s\nanchor_path=%s\n", workflow, status, base, anchor)
		if r := reverifyDetails; r != nil {
			a.printf("manifest_entries_checked=%d verification_logs_checked=%d missing_required_paths=%d\n",
				r.ManifestEntriesChecked, r.VerificationLogsChecked, len(r.RequiredPathsMissing))
		}
	}
	if reverifyDetails != nil && status != bundle.StatusPassed {
		return &exitError{code: exitStale} // 2: the bundle failed re-verification
	}
	return nil
}

// bundleError words a bundle failure in the reader's language under the
// Python tool's E_ code. Ctrl-C passes through (E_INTERRUPTED).
func (a *app) bundleError(err error) error {
	var be *bundle.Error
	if !errors.As(err, &be) {
		return err
	}
	reason := ""
	if be.Err != nil {
		reason = be.Err.Error()
		var pe *fs.PathError
		if errors.As(be.Err, &pe) {
			reason = pe.Err.Error() // the path is already in the message
		}
	}
	var msg string
	switch be.Kind {
	case bundle.SourceMissing:
		msg = a.t("bundle.error.source_missing", "Path", be.Path)
	case bundle.AnchorMissing:
		msg = a.t("bundle.error.anchor_missing", "Anchor", be.Path, "Base", be.Other)
	case bundle.Overlap:
		msg = a.t("bundle.error.overlap", "Dest", be.Path, "Source", be.Other)
	case bundle.NotText:
		msg = a.t("bundle.error.not_text", "Path", be.Path)
	case bundle.NotCopyable:
		msg = a.t("bundle.error.not_copyable", "Path", be.Path)
	case bundle.Unreadable:
		msg = a.t("bundle.error.unreadable", "Path", be.Path, "Error", reason)
	default:
		msg = a.t("bundle.error.unwritable", "Path", be.Path, "Error", reason)
	}
	return failf(be.Code(), msg)
}
