// Package daokit_test holds the module's own checks: the import arrows
// between daokit's packages.
package daokit_test

import (
	"bufio"
	"bytes"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/daokit/daokit"

// allowed lists, for each package of ours (or folder of packages: the key
// covers everything below it), the packages of ours it may reach: import
// directly or through others. A package that imports X must list what it
// reaches through X too, so an arrow that would pull a forbidden package
// in fails where it is added.
// Packages under one key may import each other. The arrows follow
// DESIGN.md: cmd → tui, relay, heal, compact → ledger, i18n, and ledger
// imports nothing of ours. The window (tui) observes and relays: it may
// label worker output (worker/transcript) and judge liveness by check's
// rule (liveness) but must never reach the process runtime (worker), the
// controller or the healing loop.
//
// A new package needs one line here, with the fewest arrows it needs.
var allowed = map[string][]string{
	"ledger": {},
	"i18n":   {},
	// The vocabulary of stored values and their labels, beside i18n.
	"vocab":             {"i18n"},
	"config":            {"i18n", "ledger"},
	"worker/transcript": {"i18n"},
	"worker":            {"internal/proc", "worker/transcript", "gitwork", "i18n", "ledger"},
	"relay":             {"backoff", "vocab", "i18n", "ledger"},
	"heal":              {"liveness", "backoff", "vocab", "i18n", "ledger"},
	// The one liveness rule, shared by heal, check and the window, and
	// the one rule of whether a controller is alive (the window, send,
	// a successor controller, a Lead's view of its processes).
	"liveness": {"vocab", "i18n", "ledger"},
	"hooks":    {"internal/proc", "config", "i18n", "ledger"},
	"backoff":  {},
	"termsafe": {},
	"compact":  {"hooks", "internal/proc", "config", "i18n", "ledger"},
	"gitwork":  {"internal/proc", "i18n", "ledger"},
	"outbox":   {"i18n", "ledger"},
	"team":     {"config", "i18n", "ledger"},
	"workflow": {"internal/proc", "config", "vocab", "i18n", "ledger"},
	// The outbox on a hub: the root's stream names and the NATS client.
	// Its own key, so that the window, which reads the outbox, never
	// reaches it (and with it the network client) through outbox.
	"outbox/natsbox": {"outbox", "hub/naming", "hub/hubconn", "backoff", "i18n", "ledger"},
	// Opens the backend workflow.toml names: for the commands and the
	// controller, never the window.
	"outbox/pick": {"outbox", "outbox/natsbox", "hub/naming", "hub/hubconn", "backoff", "team", "config", "i18n", "ledger"},
	// The behaviour every outbox backend shares, for their tests.
	"outbox/outboxtest": {"outbox", "i18n", "ledger"},
	// What the Leads publish and how the team looks, read by the window:
	// it runs nothing, so the window reaches no process runtime through it.
	"lead/roster": {"outbox", "team", "liveness", "vocab", "config", "i18n", "ledger"},
	"lead":        {"lead/roster", "internal/proc", "outbox", "team", "gitwork", "workflow", "worker", "worker/transcript", "relay", "liveness", "config", "backoff", "vocab", "i18n", "ledger"},
	"controller":  {"internal/proc", "relay", "heal", "liveness", "compact", "hooks", "backoff", "workflow", "lead", "lead/roster", "worker", "worker/transcript", "gitwork", "outbox", "outbox/pick", "outbox/natsbox", "hub/leader", "hub/mirror", "hub/naming", "hub/hubconn", "hub/remote", "hub/steps", "team", "config", "internal/say", "vocab", "i18n", "ledger"},
	// The window reads diffs through gitwork (which runs git read-only
	// through internal/proc), words workflow verdicts and
	// reads the team's state (outbox, team, the Leads' status through
	// lead/roster); none of these runs an agent from the window.
	// What a person is shown for a task, run or step (seed 004's
	// projection): pure, so the window and status draw from it alike.
	"projection": {"vocab", "i18n"},
	"tui":        {"projection", "internal/proc", "liveness", "termsafe", "relay", "compact", "hooks", "backoff", "worker/transcript", "workflow", "gitwork", "outbox", "team", "lead/roster", "config", "internal/say", "vocab", "i18n", "ledger"},
	// The dashboard is a window in a browser: it takes the window's
	// ledger feed and relay link (tui/live's interfaces) and what they
	// reach, nothing more.
	"dashboard": {"tui", "projection", "relay", "backoff", "internal/say", "worker/transcript", "gitwork", "internal/proc", "vocab", "i18n", "ledger"},
	// The release evidence bundle copies and hashes files; it writes its
	// summaries as the ledger writes JSON.
	"bundle": {"ledger"},
	// The hub runs the embedded NATS server and nothing of ours; the
	// names of a root's subjects and streams are a leaf of their own, so
	// that a client-only build (agent hosts) names them without the
	// server.
	"hub":        {"hub/naming"},
	"hub/naming": {},
	// How every client of a hub connects (the NATS client only).
	"hub/hubconn": {"backoff"},
	// A step handed to an agent host and what comes back: the client
	// side only, for the controller's relay and for agent hosts.
	"hub/steps": {"hub/naming", "hub/hubconn", "backoff"},
	// An agent host: pulls steps (hub/steps) and runs them with the
	// process runtime, never the controller's.
	"agent": {"hub/steps", "hub/naming", "hub/hubconn", "backoff", "worker", "worker/transcript", "gitwork", "internal/proc", "i18n", "ledger"},
	// A person's requests to a root's leader through the hub: the relay's
	// own envelopes, answered by the relay's own checks.
	"hub/remote": {"relay", "hub/naming", "backoff", "vocab", "i18n", "ledger"},
	// The consuming side of a root on a hub (daokit mirror, remote
	// windows), and the fenced leader that writes it: hub clients only,
	// never the server, so that a client-only build stays small.
	"hub/mirror": {"hub/naming", "hub/hubconn", "backoff"},
	"hub/leader": {"hub/mirror", "hub/naming", "hub/hubconn", "backoff"},
	"cmd":        {"*"},
	"bench":      {"ledger"},
	"e2e":        {},
	"docs":       {},
	"examples":   {},
	// Test helpers: importable by any package's tests, importing nothing of ours
	// but the stand-ins' shared fakerest.
	"internal/ptytest":                 {},
	"internal/gittest":                 {},
	"internal/fakemodel":               {},
	"internal/fakegithub":              {"internal/fakerest"},
	"internal/fakegitlab":              {"internal/fakerest"},
	"internal/fakerest":                {},
	"internal/fakemodel/cmd/fakemodel": {"internal/fakemodel"},
	// The one process runtime: every child daokit starts goes through it.
	"internal/proc": {},
	// The wording of a run's output lines, shared by the window and send.
	"internal/say": {"relay", "backoff", "worker/transcript", "vocab", "i18n", "ledger"},
	// What a resident process (daokit lead) gives back once started.
	"internal/memtrim": {},
}

// keyOf returns the allow-list key covering pkg (relative to the
// module): the longest key equal to it or a folder above it.
func keyOf(pkg string) (string, bool) {
	best := ""
	for k := range allowed {
		if (pkg == k || strings.HasPrefix(pkg, k+"/")) && len(k) > len(best) {
			best = k
		}
	}
	return best, best != ""
}

// TestImportArrows checks every package's transitive imports, not only
// its direct ones: a window that imports a package which imports the
// process runtime reaches the runtime all the same.
func TestImportArrows(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{} // our packages, relative to the module
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		pkg, ok := ours(fields[0])
		if !ok || pkg == "" {
			continue // not ours, or this test's own package
		}
		for _, imp := range fields[1:] {
			if rel, ok := ours(imp); ok {
				imports[pkg] = append(imports[pkg], rel)
			}
		}
		if _, ok := imports[pkg]; !ok {
			imports[pkg] = nil
		}
	}
	var problems []string
	for pkg := range imports {
		key, known := keyOf(pkg)
		if !known {
			problems = append(problems, "package "+pkg+" is not in the allow-list of arrows_test.go: add one line for it, with the fewest arrows it needs (DESIGN.md: cmd → tui, relay, heal, compact → ledger, i18n)")
			continue
		}
		for dep, path := range reach(imports, pkg) {
			to, _ := keyOf(dep)
			if to == key || slices.Contains(allowed[key], "*") || slices.Contains(allowed[key], to) {
				continue
			}
			problems = append(problems, pkg+" reaches "+dep+" ("+strings.Join(path, " → ")+"): not an allowed arrow from "+key+" (allowed: "+strings.Join(allowed[key], ", ")+")")
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// ours returns the path of one of our packages relative to the module.
func ours(importPath string) (string, bool) {
	if importPath == module {
		return "", true
	}
	return strings.CutPrefix(importPath, module+"/")
}

// reach returns every package from reaches through imports, each with
// one shortest import path to it, for the error message.
func reach(imports map[string][]string, from string) map[string][]string {
	paths := map[string][]string{from: {from}}
	queue := []string{from}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		for _, dep := range imports[pkg] {
			if _, seen := paths[dep]; !seen {
				paths[dep] = append(slices.Clone(paths[pkg]), dep)
				queue = append(queue, dep)
			}
		}
	}
	delete(paths, from)
	return paths
}

// The test must be able to fail: a window importing the worker runtime,
// or the ledger importing anything of ours, is refused.
func TestArrowRulesRefuseKnownBadArrows(t *testing.T) {
	for _, bad := range [][2]string{{"tui/component/events", "worker"}, {"tui", "lead"}, {"tui", "controller"}, {"ledger", "i18n"}, {"relay", "controller"}, {"worker", "relay"}, {"tui", "outbox/natsbox"}, {"tui", "outbox/pick"}, {"outbox", "outbox/natsbox"}} {
		from, _ := keyOf(bad[0])
		to, _ := keyOf(bad[1])
		if from == to || slices.Contains(allowed[from], to) || slices.Contains(allowed[from], "*") {
			t.Errorf("%s → %s is allowed, want it refused", bad[0], bad[1])
		}
	}
	if k, _ := keyOf("worker/transcript"); k != "worker/transcript" {
		t.Errorf("worker/transcript is covered by %q, want its own key", k)
	}
}

// Reaching through a package in between counts: tui → lead → worker
// reaches worker.
func TestReachFollowsImportsThroughOthers(t *testing.T) {
	got := reach(map[string][]string{"tui": {"lead"}, "lead": {"worker"}, "worker": {"internal/proc"}}, "tui")
	if p := got["worker"]; strings.Join(p, " ") != "tui lead worker" {
		t.Fatalf("path to worker = %v, want tui lead worker", p)
	}
	if _, ok := got["internal/proc"]; !ok || len(got) != 3 {
		t.Fatalf("reach = %v, want lead, worker and internal/proc", got)
	}
}
