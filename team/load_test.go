package team

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daokit/daokit/i18n"
)

func TestParseValid(t *testing.T) {
	data, err := os.ReadFile("testdata/valid.toml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := Parse(data, "workflow.toml", "/p")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(w.Names, ",") != "backend,integrator,qa" {
		t.Fatalf("names %v", w.Names)
	}
	if w.SoftCap("backend") != 1 || w.SoftCap("integrator") != 0 {
		t.Fatalf("soft caps %d %d", w.SoftCap("backend"), w.SoftCap("integrator"))
	}
	if w.Limit("backend", 2) != 1 || w.Limit("integrator", 2) != 2 {
		t.Fatal("limit")
	}
	if w.RepoDir("qa") != "/p/repos/qa" || w.RepoDir("integrator") != "/p" || w.DBPath() != "/p/.daokit/outbox.db" {
		t.Fatalf("paths %s %s", w.RepoDir("qa"), w.DBPath())
	}
	if !w.Roles["integrator"].Accepts {
		t.Fatal("accepts")
	}
}

// A group that names several roles is shared by them; a group of one
// role is that role's own cap.
func TestSharedGroups(t *testing.T) {
	data, _ := os.ReadFile("testdata/valid.toml")
	w, err := Parse(data, "workflow.toml", "/p")
	if err != nil {
		t.Fatal(err)
	}
	if g := w.SharedGroups("qa"); len(g) != 1 || g[0].Name != "checks" || g[0].MaxConcurrent != 1 {
		t.Fatalf("qa: %+v", g)
	}
	if g := w.SharedGroups("backend"); len(g) != 1 || g[0].Name != "checks" {
		t.Fatalf("backend: %+v", g)
	}
	if g := w.SharedGroups("integrator"); len(g) != 0 {
		t.Fatalf("integrator: %+v", g)
	}
}

// min(soft 4, hard 2) is 2, the case of the concurrency test.
func TestLimitIsMinOfSoftAndHard(t *testing.T) {
	w, err := Parse([]byte("[roles.b]\n[groups.b]\nmax_concurrent = 4\n"), "", "/p")
	if err != nil {
		t.Fatal(err)
	}
	if w.Limit("b", 2) != 2 || w.Limit("b", 8) != 4 {
		t.Fatalf("%d %d", w.Limit("b", 2), w.Limit("b", 8))
	}
}

// Each mistake gives exactly one message that names its key, in both
// languages.
func TestOneClearMessageEach(t *testing.T) {
	cases := []struct {
		name, file string
		code       Code
		en, zh     string
	}{
		{"unknown role", "[roles.qa]\ndepends_on = [\"bakend\"]\n[roles.backend]\n", CodeUnknownRole,
			`roles.qa.depends_on[0] = "bakend": no such role (the roles are: backend, qa)`, "没有这个角色"},
		{"unknown group role", "[roles.qa]\n[groups.web]\nmax_concurrent = 2\n", CodeUnknownRole,
			`groups.web = "web": no such role`, "没有这个角色"},
		{"cycle", "[roles.a]\ndepends_on = [\"b\"]\n[roles.b]\ndepends_on = [\"c\"]\n[roles.c]\ndepends_on = [\"a\"]\n", CodeCycle,
			"roles.a.depends_on: depends_on goes round in a cycle: a → b → c → a", "形成了循环"},
		{"self cycle", "[roles.a]\ndepends_on = [\"a\"]\n", CodeCycle, "a → a", "循环"},
		{"cap zero", "[roles.a]\n[groups.a]\nmax_concurrent = 0\n", CodeCap,
			"groups.a.max_concurrent = 0: a cap must be a whole number in 1–64", "上限必须是"},
		{"cap large", "[roles.a]\n[groups.a]\nmax_concurrent = 65\n", CodeCap, "= 65", "上限"},
		{"cap missing", "[roles.a]\n[groups.a]\n", CodeCap, "groups.a.max_concurrent = -", "上限"},
		{"unknown key", "[roles.a]\nrole_rep = \"x\"\n", CodeUnknownKey, "unknown setting roles.a.role_rep", "未知设置"},
		{"no roles", "", CodeNoRoles, "no roles", "没有任何角色"},
		{"backend", "[outbox]\nbackend = \"redis\"\n[roles.a]\n", CodeBackend, "unknown outbox backend", "未知的 outbox 后端"},
		{"nats without url", "[outbox]\nbackend = \"nats\"\nroot = \"proj\"\n[roles.a]\n", CodeHub, `outbox.url = "": the nats backend needs url`, "nats 后端需要"},
		{"nats without root", "[outbox]\nbackend = \"nats\"\nurl = \"nats://h:4222\"\n[roles.a]\n", CodeHub, `outbox.root = ""`, "根 id"},
		{"nats http url", "[outbox]\nbackend = \"nats\"\nurl = \"http://h:4222\"\nroot = \"p\"\n[roles.a]\n", CodeHub, `outbox.url = "http://h:4222"`, "nats://"},
		{"url on sqlite", "[outbox]\nurl = \"nats://h:4222\"\n[roles.a]\n", CodeHub, "only it takes url, root and credentials", "只有它接受"},
		{"kind", "[roles.a]\nkind = \"gemini\"\n", CodeKind, "unknown Worker kind", "未知的 Worker 类型"},
		{"github without repo", "[outbox]\nbackend = \"github\"\n[roles.a]\n", CodeRepo, `outbox.repo = "": the github backend needs repo = "owner/name"`, "github 后端需要"},
		{"github bad repo", "[outbox]\nbackend = \"github\"\nrepo = \"just-a-name\"\n[roles.a]\n", CodeRepo, `"just-a-name"`, "owner/name"},
		{"repo on sqlite", "[outbox]\nrepo = \"a/b\"\n[roles.a]\n", CodeRepo, "only it takes repo", "只有它接受"},
		{"github bad api_url", "[outbox]\nbackend = \"github\"\nrepo = \"a/b\"\napi_url = \"ftp://x\"\n[roles.a]\n", CodeAPIURL, "not an http(s) URL", "不是 http(s) URL"},
		{"gitlab bad project", "[outbox]\nbackend = \"gitlab\"\nrepo = \"just-a-name\"\n[roles.a]\n", CodeRepo, `the gitlab backend needs repo`, "gitlab 后端需要"},
		{"gitlab bad api_url", "[outbox]\nbackend = \"gitlab\"\nrepo = \"a/b/c\"\napi_url = \"gitlab.example\"\n[roles.a]\n", CodeAPIURL, "https://HOST/api/v4", "自托管 GitLab"},
		{"deliver on sqlite", "[roles.a]\ndeliver = \"pr\"\n", CodeDeliver, `roles.a.deliver = "pr": a role delivers only as "pr"`, "当前 outbox：sqlite"},
		{"deliver merge", "[outbox]\nbackend = \"gitlab\"\nrepo = \"a/b/c\"\n[roles.a]\ndeliver = \"merge\"\n", CodeDeliver, `"merge"`, "合并请求"},
		{"syntax", "[roles.a\n", CodeSyntax, "not a valid workflow file", "不是有效的"},
	}
	zh := i18n.MustNew(i18n.Chinese)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.file), "workflow.toml", "/p")
			es, ok := err.(Errors)
			if !ok || len(es) != 1 {
				t.Fatalf("want one error, got %v", err)
			}
			if es[0].Code != c.code {
				t.Fatalf("code %s, want %s", es[0].Code, c.code)
			}
			if !strings.Contains(es.Error(), c.en) || !strings.HasPrefix(es.Error(), "workflow.toml: ") {
				t.Fatalf("english %q lacks %q", es.Error(), c.en)
			}
			if !strings.Contains(es.Localize(zh), c.zh) {
				t.Fatalf("chinese %q lacks %q", es.Localize(zh), c.zh)
			}
		})
	}
}

func TestHardCapsNameKnownRoles(t *testing.T) {
	w, err := Parse([]byte("[roles.a]\n"), "", "/p")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.CheckHardCaps(map[string]int{"a": 1}, "daokit.toml"); err != nil {
		t.Fatal(err)
	}
	err = w.CheckHardCaps(map[string]int{"b": 1}, "daokit.toml")
	if err == nil || !strings.Contains(err.Error(), `team.role_max_concurrent.b = "b": no such role`) {
		t.Fatalf("%v", err)
	}
}

func TestLoadMissing(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "no workflow.toml") {
		t.Fatalf("%v", err)
	}
	os.WriteFile(filepath.Join(dir, FileName), []byte("[roles.a]\n"), 0o644)
	if !Exists(dir) {
		t.Fatal("exists")
	}
	if _, err := Load(dir); err != nil {
		t.Fatal(err)
	}
}

// FuzzParse: any input gives a workflow or errors, never a panic, and a
// workflow it accepts has no depends_on cycle.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"testdata/valid.toml"} {
		data, _ := os.ReadFile(name)
		f.Add(string(data))
	}
	f.Add("[roles.a]\ndepends_on=[\"a\"]")
	f.Fuzz(func(t *testing.T, s string) {
		w, err := Parse([]byte(s), "", "/p")
		if err == nil && findCycle(w) != nil {
			t.Fatal("accepted a cycle")
		}
	})
}

// The github backend names its repository and, by default, keeps its
// mirror per repository under .daokit/github.
func TestGitHubOutbox(t *testing.T) {
	w, err := Parse([]byte("[outbox]\nbackend = \"github\"\nrepo = \"acme/app\"\napi_url = \"https://ghe.example/api/v3\"\n[roles.a]\n"), "", "/p")
	if err != nil {
		t.Fatal(err)
	}
	if w.Outbox.Repo != "acme/app" || w.Outbox.APIURL != "https://ghe.example/api/v3" || w.DBPath() != "/p/.daokit/github/acme/app.db" {
		t.Fatalf("%+v %s", w.Outbox, w.DBPath())
	}
}

// The gitlab backend names its project by its path, subgroups and all,
// and keeps its mirror per project under .daokit/gitlab.
func TestGitLabOutbox(t *testing.T) {
	w, err := Parse([]byte("[outbox]\nbackend = \"gitlab\"\nrepo = \"acme/platform/app\"\napi_url = \"https://git.example/api/v4\"\n[roles.a]\n"), "", "/p")
	if err != nil {
		t.Fatal(err)
	}
	if w.Outbox.Repo != "acme/platform/app" || w.Outbox.APIURL != "https://git.example/api/v4" || w.DBPath() != "/p/.daokit/gitlab/acme/platform/app.db" {
		t.Fatalf("%+v %s", w.Outbox, w.DBPath())
	}
}

// The guard is on unless workflow.toml opts out in so many words.
func TestAllowUnguardedIsExplicit(t *testing.T) {
	for body, want := range map[string]bool{
		"[roles.a]\n": false,
		"[roles.a]\n[guard]\nallow_unguarded = false\n": false,
		"[roles.a]\n[guard]\nallow_unguarded = true\n":  true,
	} {
		w, err := Parse([]byte(body), "workflow.toml", "/p")
		if err != nil {
			t.Fatal(err)
		}
		if w.AllowUnguarded != want {
			t.Errorf("%q: allow_unguarded %v", body, w.AllowUnguarded)
		}
	}
	if _, err := Parse([]byte("[roles.a]\n[guard]\nallow = true\n"), "workflow.toml", "/p"); err == nil {
		t.Error("a misspelt [guard] key was accepted")
	}
}

// The nats backend names its hub, its root and, relative to the outbox
// root, the hub's credentials file.
func TestNATSOutbox(t *testing.T) {
	w, err := Parse([]byte("[outbox]\nbackend = \"nats\"\nurl = \"nats://hub.lan:4222\"\nroot = \"acme-app\"\ncredentials = \"keys/admin.nk\"\n[roles.a]\n"), "", "/p")
	if err != nil {
		t.Fatal(err)
	}
	if w.Outbox.URL != "nats://hub.lan:4222" || w.Outbox.Root != "acme-app" || w.CredentialsPath() != "/p/keys/admin.nk" {
		t.Fatalf("%+v %s", w.Outbox, w.CredentialsPath())
	}
}
