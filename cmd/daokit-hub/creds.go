package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/daokit/daokit/hub"
	"github.com/daokit/daokit/hub/naming"
	"github.com/daokit/daokit/i18n"
	"github.com/spf13/pflag"
)

// creds is `daokit hub creds`: a key for one root and one role (leader,
// agent, reader) that the hub enforces, issued into the data
// directory's registry (hub.UsersFile); its seed goes to --out.
func creds(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	var data, rootID, role, out, lang string
	fs := pflag.NewFlagSet(command+" creds", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&data, "data", "", "hub.cli.flag.data")
	fs.StringVar(&rootID, "root-id", "", "hub.cli.creds.flag.root_id")
	fs.StringVar(&role, "role", "agent", "hub.cli.creds.flag.role")
	fs.StringVar(&out, "out", "", "hub.cli.creds.flag.out")
	fs.StringVar(&lang, "lang", "", "cli.flag.lang")
	parseErr := fs.Parse(args)
	resolved, err := i18n.Resolve(lang, getenv)
	if err != nil {
		resolved = i18n.English
	}
	loc := i18n.MustNew(resolved)
	usage := func(detail string) int {
		fmt.Fprintln(stderr, loc.T("cli.error.usage", "Command", command+" creds", "Detail", detail))
		return exitUsage
	}
	switch {
	case parseErr != nil:
		return usage(parseErr.Error())
	case fs.NArg() > 0:
		return usage(loc.T("cli.error.unexpected_args", "Args", strings.Join(fs.Args(), " ")))
	case rootID == "":
		return usage(loc.T("hub.cli.creds.error.root_id_missing"))
	}
	root, err := naming.ForRoot(rootID)
	if err != nil {
		return usage(loc.T("hub.cli.creds.error.root_id", "ID", rootID))
	}
	r, err := hub.ParseRole(role)
	if err != nil {
		return usage(loc.T("hub.cli.creds.error.role", "Role", role))
	}
	if out == "" {
		out = "daokit-" + root.ID() + "-" + string(r) + ".nk"
	}
	if data == "" {
		data = defaultDataDir(getenv)
	}
	u, err := hub.Issue(data, root, r, out)
	var he *hub.Error
	if errors.As(err, &he) && he.Kind == hub.KindCredentials && he.Subject == out {
		fmt.Fprintln(stderr, "E_HUB_FAILED: "+loc.T("hub.cli.creds.error.out", "File", out, "Err", he.Err.Error()))
		return exitFailure
	}
	if err != nil {
		msg, code := startError(loc, err)
		fmt.Fprintln(stderr, msg)
		return code
	}
	fmt.Fprintln(stdout, loc.T("hub.cli.creds.issued", "Role", string(u.Role), "Root", u.Root, "File", out, "Key", u.PublicKey))
	fmt.Fprintln(stdout, loc.T("hub.cli.creds.reload", "Dir", data))
	return exitOK
}

// reloadOnHangup waits for ctx's end, reloading the issued keys on each
// SIGHUP (`daokit hub creds` adds them while the hub runs). A registry
// that cannot be read is reported and changes nothing.
func reloadOnHangup(ctx context.Context, h *hub.Hub, loc *i18n.Localizer, stdout, stderr io.Writer) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			if err := h.ReloadUsers(); err != nil {
				msg, _ := startError(loc, err)
				fmt.Fprintln(stderr, msg)
				continue
			}
			fmt.Fprintln(stdout, loc.T("hub.cli.reloaded"))
		}
	}
}
