// Command daokit-hub is the hub of issue 31 (an embedded NATS JetStream
// server): what `daokit hub` runs. It is a program of its own, and the
// only one that links the server, because the server's package inits
// start a /proc sampler that wakes every second and load about 10 MB in
// every process that links it; daokit's window, controller, Leads and
// Workers must not pay for a server they never run.
//
// daokit parses `daokit hub`'s flags and execs this program with them as
// --name=value; run alone it takes the same flags.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/daokit/daokit/hub"
	"github.com/daokit/daokit/i18n"
	"github.com/spf13/pflag"
)

// Exit codes, daokit's own.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// stopWait bounds a clean stop's wait for health and metrics requests in
// flight; the server itself always stops.
const stopWait = 5 * time.Second

// command is how messages name this program: people type `daokit hub`.
const command = "daokit hub"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// A second signal gets the default action: never a hub that only
		// SIGKILL stops.
		<-ctx.Done()
		stop()
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

// options are the hub's flags, as `daokit hub` documents them.
type options struct {
	listen, data, monitor string
	tlsCert, tlsKey       string
	anonymous, verbose    bool
	lang                  string
	help                  bool
}

// run is the program as a function, so that tests drive it in-process:
// it serves until ctx ends, then stops the hub cleanly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) > 0 && args[0] == "creds" {
		return creds(args[1:], stdout, stderr, getenv)
	}
	var o options
	fs := pflag.NewFlagSet(command, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.listen, "listen", hub.DefaultListen, "hub.cli.flag.listen")
	fs.StringVar(&o.data, "data", "", "hub.cli.flag.data")
	fs.StringVar(&o.tlsCert, "tls-cert", "", "hub.cli.flag.tls_cert")
	fs.StringVar(&o.tlsKey, "tls-key", "", "hub.cli.flag.tls_key")
	fs.StringVar(&o.monitor, "monitor", hub.DefaultMonitor, "hub.cli.flag.monitor")
	fs.BoolVar(&o.anonymous, "anonymous", false, "hub.cli.flag.anonymous")
	fs.BoolVar(&o.verbose, "verbose", false, "hub.cli.flag.verbose")
	fs.StringVar(&o.lang, "lang", "", "cli.flag.lang")
	fs.BoolVarP(&o.help, "help", "h", false, "cli.flag.help")
	parseErr := fs.Parse(args)
	lang, err := i18n.Resolve(o.lang, getenv)
	if err != nil {
		en := i18n.MustNew(i18n.English)
		var ule *i18n.UnknownLanguageError
		if errors.As(err, &ule) {
			fmt.Fprintln(stderr, en.T("cli.error.unknown_language", "Source", ule.Source, "Value", ule.Value, "Supported", strings.Join(i18n.Supported(), ", ")))
		} else {
			fmt.Fprintln(stderr, err)
		}
		return exitUsage
	}
	loc := i18n.MustNew(lang)
	switch {
	case parseErr != nil:
		fmt.Fprintln(stderr, loc.T("cli.error.usage", "Command", command, "Detail", parseErr.Error()))
		return exitUsage
	case fs.NArg() > 0:
		fmt.Fprintln(stderr, loc.T("cli.error.usage", "Command", command, "Detail", loc.T("cli.error.unexpected_args", "Args", strings.Join(fs.Args(), " "))))
		return exitUsage
	case o.help:
		printHelp(stdout, loc, fs)
		return exitOK
	}
	if o.data == "" {
		o.data = defaultDataDir(getenv)
	}
	return serve(ctx, o, loc, stdout, stderr)
}

// serve starts the hub and serves until ctx ends (SIGINT or SIGTERM),
// then stops it cleanly (JetStream closes its store; nothing
// acknowledged is lost either way, a SIGKILL included).
func serve(ctx context.Context, o options, loc *i18n.Localizer, stdout, stderr io.Writer) int {
	level := slog.LevelWarn
	if o.verbose {
		level = slog.LevelDebug
	}
	h, err := hub.Start(hub.Options{
		Listen: o.listen, DataDir: o.data, TLSCert: o.tlsCert, TLSKey: o.tlsKey,
		Anonymous: o.anonymous, Monitor: o.monitor,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
	})
	if err != nil {
		msg, code := startError(loc, err)
		fmt.Fprintln(stderr, msg)
		return code
	}
	fmt.Fprintln(stdout, loc.T("hub.cli.serving", "URL", h.ClientURL(), "Dir", o.data))
	fmt.Fprintln(stdout, loc.T("hub.cli.credentials", "File", h.CredentialsFile()))
	if u := h.MonitorURL(); u != "" {
		fmt.Fprintln(stdout, loc.T("hub.cli.monitor", "Health", u+"/healthz", "Metrics", u+"/metrics"))
	}
	if host, _, _ := net.SplitHostPort(o.listen); o.tlsCert == "" && !hub.IsLoopback(host) {
		fmt.Fprintln(stderr, loc.T("hub.cli.warn.plaintext", "Addr", o.listen))
	}
	fmt.Fprintln(stdout, loc.T("hub.cli.stop"))
	reloadOnHangup(ctx, h, loc, stdout, stderr)
	stopCtx, cancel := context.WithTimeout(context.Background(), stopWait)
	defer cancel()
	if err := h.Shutdown(stopCtx); err != nil {
		fmt.Fprintln(stderr, "E_HUB_FAILED: "+err.Error())
		return exitFailure
	}
	fmt.Fprintln(stdout, loc.T("hub.cli.stopped"))
	// A signal is how a hub is stopped: an end, not a failure.
	return exitOK
}

// startError words a failed start in the reader's language, naming what
// to fix, with its exit code; anonymous access beyond loopback is a
// usage error.
func startError(loc *i18n.Localizer, err error) (string, int) {
	var he *hub.Error
	if !errors.As(err, &he) {
		return "E_HUB_FAILED: " + err.Error(), exitFailure
	}
	reason := ""
	if he.Err != nil {
		reason = he.Err.Error()
	}
	var msg string
	switch he.Kind {
	case hub.KindAnonymous:
		return loc.T("cli.error.usage", "Command", command, "Detail", loc.T("hub.cli.error.anonymous", "Addr", he.Subject)), exitUsage
	case hub.KindPortBusy:
		msg = loc.T("hub.cli.error.port_busy", "Addr", he.Subject)
	case hub.KindListen:
		msg = loc.T("hub.cli.error.listen", "Addr", he.Subject, "Err", reason)
	case hub.KindDataDir:
		msg = loc.T("hub.cli.error.data_dir", "Dir", he.Subject, "Err", reason)
	case hub.KindDataDirInUse:
		msg = loc.T("hub.cli.error.data_dir_in_use", "Dir", he.Subject)
	case hub.KindCredentials:
		msg = loc.T("hub.cli.error.credentials", "File", he.Subject, "Err", reason)
	case hub.KindTLS:
		msg = loc.T("hub.cli.error.tls", "File", he.Subject, "Err", reason)
	default:
		msg = loc.T("hub.cli.error.start", "Addr", he.Subject, "Err", reason)
	}
	return "E_HUB_FAILED: " + msg, exitFailure
}

// printHelp lists the flags in the reader's language (daokit hub --help
// is daokit's help, in daokit's layout; this one is for daokit-hub run
// alone).
func printHelp(w io.Writer, loc *i18n.Localizer, fs *pflag.FlagSet) {
	fmt.Fprintln(w, loc.T("hub.cli.summary"))
	fmt.Fprintln(w)
	fmt.Fprintln(w, loc.T("hub.cli.help.usage"))
	fs.VisitAll(func(f *pflag.Flag) {
		name := "--" + f.Name
		if f.Value.Type() != "bool" {
			name += " " + f.Value.Type()
		}
		line := fmt.Sprintf("  %-22s %s", name, loc.T(f.Usage))
		if f.Value.Type() != "bool" && f.DefValue != "" {
			line += " (" + f.DefValue + ")"
		}
		fmt.Fprintln(w, line)
	})
}

// defaultDataDir is the hub's data directory when --data is not given:
// daokit/hub under the XDG data directory ($XDG_DATA_HOME, else
// ~/.local/share).
func defaultDataDir(getenv func(string) string) string {
	if x := getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "daokit", "hub")
	}
	return filepath.Join(getenv("HOME"), ".local", "share", "daokit", "hub")
}
