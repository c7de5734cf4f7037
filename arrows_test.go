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
// covers everything below it), the packages of ours it may import.
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
	// The one liveness rule, shared by heal, check and the window.
	"liveness":   {"vocab", "ledger"},
	"hooks":      {"internal/proc", "config"},
	"backoff":    {},
	"termsafe":   {},
	"compact":    {"hooks", "config", "i18n", "ledger"},
	"gitwork":    {"internal/proc", "i18n", "ledger"},
	"outbox":     {"i18n", "ledger"},
	"team":       {"config", "i18n", "ledger"},
	"workflow":   {"internal/proc", "config", "vocab", "i18n", "ledger"},
	"lead":       {"internal/proc", "outbox", "team", "gitwork", "worker", "worker/transcript", "relay", "config", "backoff", "vocab", "i18n", "ledger"},
	"controller": {"internal/proc", "relay", "heal", "compact", "hooks", "backoff", "workflow", "lead", "worker", "worker/transcript", "gitwork", "outbox", "team", "config", "internal/say", "vocab", "i18n", "ledger"},
	// The window reads diffs through gitwork, words workflow verdicts and
	// reads the team's state (outbox, team, the Leads' status through
	// lead's view); none of these runs an agent from the window.
	"tui": {"liveness", "termsafe", "relay", "compact", "hooks", "backoff", "worker/transcript", "workflow", "gitwork", "outbox", "team", "lead", "config", "internal/say", "vocab", "i18n", "ledger"},
	// The dashboard is a window in a browser: it takes the window's
	// ledger feed and relay link (tui/live's interfaces), nothing more.
	"dashboard": {"tui", "vocab", "i18n", "ledger"},
	// The release evidence bundle copies and hashes files; it writes its
	// summaries as the ledger writes JSON.
	"bundle":   {"ledger"},
	"cmd":      {"*"},
	"bench":    {"ledger"},
	"e2e":      {},
	"docs":     {},
	"examples": {},
	// Test helpers: importable by any package's tests, importing nothing of ours.
	"internal/ptytest":                 {},
	"internal/gittest":                 {},
	"internal/fakemodel":               {},
	"internal/fakemodel/cmd/fakemodel": {"internal/fakemodel"},
	// The one process runtime: every child daokit starts goes through it.
	"internal/proc": {},
	// The wording of a run's output lines, shared by the window and send.
	"internal/say": {"relay", "worker/transcript", "vocab", "i18n"},
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

func TestImportArrows(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var problems []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		pkg, ok := strings.CutPrefix(fields[0], module)
		if !ok {
			continue
		}
		pkg = strings.TrimPrefix(pkg, "/")
		if pkg == "" {
			continue // this test's own package
		}
		key, known := keyOf(pkg)
		if !known {
			problems = append(problems, "package "+pkg+" is not in the allow-list of arrows_test.go: add one line for it, with the fewest arrows it needs (DESIGN.md: cmd → tui, relay, heal, compact → ledger, i18n)")
			continue
		}
		for _, imp := range fields[1:] {
			rel, ours := strings.CutPrefix(imp, module+"/")
			if !ours {
				continue
			}
			to, _ := keyOf(rel)
			if to == key || slices.Contains(allowed[key], "*") || slices.Contains(allowed[key], to) {
				continue
			}
			problems = append(problems, pkg+" imports "+rel+": not an allowed arrow from "+key+" (allowed: "+strings.Join(allowed[key], ", ")+")")
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// The test must be able to fail: a window importing the worker runtime,
// or the ledger importing anything of ours, is refused.
func TestArrowRulesRefuseKnownBadArrows(t *testing.T) {
	for _, bad := range [][2]string{{"tui/component/events", "worker"}, {"tui", "controller"}, {"ledger", "i18n"}, {"relay", "controller"}, {"worker", "relay"}} {
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
