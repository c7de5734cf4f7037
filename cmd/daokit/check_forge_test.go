package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// forgeRoot makes a ledger root whose team keeps its outbox in repo on
// the backend's stand-in at api.
func forgeRoot(t *testing.T, backend, repo, api string) string {
	t.Helper()
	root := initRoot(t)
	cfg, _ := os.ReadFile(filepath.Join(root, "daokit.toml"))
	os.WriteFile(filepath.Join(root, "daokit.toml"), append(cfg, []byte("\n[team]\noutbox_root = \"team\"\n")...), 0o644)
	os.MkdirAll(filepath.Join(root, "team"), 0o755)
	os.WriteFile(filepath.Join(root, "team", "workflow.toml"), []byte(
		"[outbox]\nbackend = \""+backend+"\"\nrepo = \""+repo+"\"\napi_url = \""+api+"\"\n[roles.backend]\n[roles.qa]\ndepends_on = [\"backend\"]\n"), 0o644)
	return root
}

// checkCase is one set-up daokit check judges: en and zh are what its
// complaint must say in each language, both empty for a good set-up.
type checkCase struct {
	name, root string
	env        map[string]string
	args       []string
	en, zh     string
}

// runCheckCases runs daokit check on each case in both languages, and
// fails when the token is printed or when one check asks the forge more
// than once (requests is the stand-in's request count).
func runCheckCases(t *testing.T, cases []checkCase, token string, requests func() int) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, lang := range []string{"en", "zh-CN"} {
				before := requests()
				r := runCLI(t, c.env, append([]string{"check", "--root", c.root, "--lang", lang}, c.args...)...)
				want := c.en
				if lang == "zh-CN" {
					want = c.zh
				}
				if strings.Contains(r.stderr+r.stdout, token) {
					t.Fatal("the token was printed")
				}
				if n := requests() - before; n > 1 {
					t.Fatalf("%s: check sent %d requests", lang, n)
				}
				if want == "" {
					if strings.Contains(r.stderr, "E_CHECK_OUTBOX_INVALID") {
						t.Fatalf("%s: %q", lang, r.stderr)
					}
					continue
				}
				if r.code != exitFailure || !strings.Contains(r.stderr, "E_CHECK_OUTBOX_INVALID: ") || !strings.Contains(r.stderr, want) {
					t.Fatalf("%s: code %d stderr %q, want %q", lang, r.code, r.stderr, want)
				}
			}
		})
	}
}
