package outbox_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/daokit/daokit/internal/fakegithub"
	"github.com/daokit/daokit/internal/fakegitlab"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/outboxtest"
)

// The SQLite backend has every behaviour outboxtest asks of a backend;
// each handle is a connection of its own to one database file, as the
// Leads of one host are.
func TestSQLiteBackend(t *testing.T) {
	outboxtest.Run(t, func(t testing.TB) outboxtest.Opener {
		path := filepath.Join(t.TempDir(), "outbox.db")
		if _, err := outbox.Init(path, false); err != nil {
			t.Fatal(err)
		}
		return func(t testing.TB, h outboxtest.Handle) outbox.Backend {
			s, err := outbox.OpenSQLite(path, outbox.Options{WakeInterval: h.WakeInterval})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
	})
}

// The GitHub and GitLab backends have every behaviour outboxtest asks
// of a backend, against their stand-ins; each handle is a process of
// its own on one mirror, as the Leads of one host are.
func TestGitHubBackend(t *testing.T) {
	outboxtest.Run(t, forgeMaker("github", func(t testing.TB) string {
		f := fakegithub.New(fakegithub.Options{}, map[string]fakegithub.Token{"ghp-suite": {Login: "daokit-bot", Push: true}}, "acme/app")
		t.Cleanup(f.Close)
		return f.URL
	}, outbox.OpenGitHub, "acme/app", "ghp-suite"))
}

func TestGitLabBackend(t *testing.T) {
	outboxtest.Run(t, forgeMaker("gitlab", func(t testing.TB) string {
		f := fakegitlab.New(fakegitlab.Options{}, map[string]fakegitlab.Token{"glpat-suite": {Username: "daokit-bot", Level: 30}}, nil, "acme/platform/app")
		t.Cleanup(f.Close)
		return f.URL
	}, outbox.OpenGitLab, "acme/platform/app", "glpat-suite"))
}

func forgeMaker(dir string, serve func(testing.TB) string, open func(context.Context, outbox.ForgeConfig) (*outbox.Forge, error), repo, token string) outboxtest.Maker {
	return func(t testing.TB) outboxtest.Opener {
		api := serve(t)
		mirror := filepath.Join(t.TempDir(), dir, filepath.FromSlash(repo)+".db")
		var mu sync.Mutex
		return func(t testing.TB, h outboxtest.Handle) outbox.Backend {
			mu.Lock() // the first open makes the mirror
			defer mu.Unlock()
			g, err := open(context.Background(), outbox.ForgeConfig{Repo: repo, APIURL: api, Token: token,
				Mirror: mirror, Options: outbox.Options{WakeInterval: h.WakeInterval}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { g.Close() })
			return g
		}
	}
}
