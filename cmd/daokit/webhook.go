package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/pick"
	"github.com/daokit/daokit/team"
	"github.com/spf13/cobra"
)

// newWebhookCmd is "daokit webhook --listen ADDR": it receives the
// webhook deliveries of a GitHub or GitLab outbox, checks them with
// GITHUB_WEBHOOK_SECRET (the signature) or GITLAB_WEBHOOK_SECRET (the
// X-Gitlab-Token), and reads the service's changes into the mirror at
// once, which wakes the Leads; polling stays as the fallback.
func newWebhookCmd(a *app) *cobra.Command {
	c := a.command("webhook", "cli.webhook.summary", nil)
	f := c.Flags()
	root := rootFlag(f)
	dir := f.String("outbox", "", "cli.outbox.flag.outbox")
	listen := f.String("listen", "127.0.0.1:8787", "cli.webhook.flag.listen")
	c.RunE = func(*cobra.Command, []string) error {
		env, err := a.loadTeam(*root, *dir)
		if err != nil {
			return err
		}
		if b := env.wf.Outbox.Backend; b != team.BackendGitHub && b != team.BackendGitLab {
			return failf("E_WEBHOOK", a.t("cli.webhook.error.not_github", "Backend", b))
		}
		secretEnv := outbox.WebhookSecretEnvOf(env.wf.Outbox.Backend)
		secret := a.getenv(secretEnv)
		if secret == "" {
			return failf("E_WEBHOOK_NO_SECRET", a.t("cli.webhook.error.no_secret", "Env", secretEnv))
		}
		ob, err := pick.Open(a.ctx, env.wf, pick.Token(env.wf, a.getenv), outbox.Options{})
		if err != nil {
			return a.outboxFailure(err)
		}
		defer ob.Close()
		g, ok := ob.(*outbox.Forge)
		if !ok {
			return failf("E_WEBHOOK", a.t("cli.webhook.error.not_github", "Backend", env.wf.Outbox.Backend))
		}
		h, err := g.WebhookHandler([]byte(secret))
		if err != nil {
			return failf("E_WEBHOOK", err.Error())
		}
		ln, err := net.Listen("tcp", *listen)
		if err != nil {
			return failf("E_WEBHOOK", err.Error())
		}
		fmt.Fprintln(a.io.out, a.t("cli.webhook.listening", "Addr", ln.Addr().String(), "Repo", g.Repo()))
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		served := make(chan error, 1)
		go func() { served <- srv.Serve(ln) }()
		select {
		case err := <-served:
			return failf("E_WEBHOOK", err.Error())
		case <-a.ctx.Done():
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err = srv.Shutdown(ctx)
		if serr := <-served; !errors.Is(serr, http.ErrServerClosed) && serr != nil {
			err = errors.Join(err, serr)
		}
		if err != nil {
			return failf("E_WEBHOOK", err.Error())
		}
		return nil
	}
	return c
}
