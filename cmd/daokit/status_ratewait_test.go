package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/team"
)

// daokit status says, under the roles, that GitHub makes a Lead wait
// and until when, in both languages.
func TestStatusShowsGitHubsWait(t *testing.T) {
	root := initRoot(t)
	cfg, _ := os.ReadFile(filepath.Join(root, "daokit.toml"))
	os.WriteFile(filepath.Join(root, "daokit.toml"), append(cfg, []byte("\n[team]\noutbox_root = \"team\"\n")...), 0o644)
	os.MkdirAll(filepath.Join(root, "team"), 0o755)
	os.WriteFile(filepath.Join(root, "team", "workflow.toml"), []byte("[roles.backend]\n[roles.qa]\n"), 0o644)
	if r := runCLI(t, nil, "outbox", "init", "--root", root); r.code != 0 {
		t.Fatalf("outbox init: %s", r.stderr)
	}
	wf, err := team.Load(filepath.Join(root, "team"))
	if err != nil {
		t.Fatal(err)
	}
	until := time.Now().Add(time.Hour).UTC()
	st := roster.Status{Role: "backend", PID: os.Getpid(), Limit: 2, Running: []int64{}, Queued: []int64{}, Time: time.Now(),
		Blocked: map[string][]int64{}, RateWait: &outbox.RateWait{Until: until, Reason: "secondary"}}
	data, _ := json.Marshal(st)
	os.MkdirAll(roster.StatusDir(wf), 0o755)
	if err := os.WriteFile(roster.StatusPath(roster.StatusDir(wf), "backend"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	for lang, want := range map[string]string{
		"en":    "backend: GitHub makes the Lead wait (secondary rate limit) until " + until.Format("2006-01-02 15:04:05 UTC"),
		"zh-CN": "backend：GitHub 要求 Lead 等待（次级速率限制），直到 " + until.Format("2006-01-02 15:04:05 UTC"),
	} {
		r := runCLI(t, nil, "status", "--root", root, "--lang", lang)
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("%s: status lacks %q:\n%s%s", lang, want, r.stdout, r.stderr)
		}
	}
	r := runCLI(t, nil, "status", "--root", root, "--json")
	if !strings.Contains(r.stdout, `"rate_wait"`) {
		t.Fatalf("status --json lacks rate_wait: %s", r.stdout)
	}
}
