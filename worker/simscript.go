package worker

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"

	"github.com/daokit/daokit/i18n"

	"github.com/daokit/daokit/worker/transcript"
)

// simFiles is the made-up project the simulated agent works on.
var simFiles = []string{
	"internal/store/store.go", "internal/store/store_test.go", "cmd/server/main.go",
	"pkg/api/handler.go", "pkg/api/handler_test.go", "internal/config/load.go",
	"internal/cache/lru.go", "pkg/auth/token.go", "pkg/auth/token_test.go", "README.md",
}

// simScript decides, from the instruction and the seed alone, what the
// simulated agent does.
type simScript struct {
	rng     *rand.Rand
	session string
	title   string
	files   []string // the files it reads and edits, in order
	edited  map[string]bool
	fail    bool
}

func newSimScript(o SimOptions) *simScript {
	h := fnv.New64a()
	h.Write([]byte(o.Instruction))
	sum := h.Sum64()
	rng := rand.New(rand.NewPCG(sum, o.Seed))
	files := append([]string(nil), simFiles...)
	rng.Shuffle(len(files), func(i, j int) { files[i], files[j] = files[j], files[i] })
	title := transcript.OneLine(o.Instruction, 60)
	if title == "" {
		title = "…"
	}
	return &simScript{
		rng:     rng,
		session: fmt.Sprintf("sim-%016x", sum^o.Seed),
		title:   title,
		files:   files,
		edited:  map[string]bool{},
		fail:    o.ExitCode != 0,
	}
}

// file returns the k-th file the agent touches.
func (sc *simScript) file(k int) string { return sc.files[k%len(sc.files)] }

// beat returns the lines of progress line i: what an agent typically does
// at that point of its work. The cycle after the plan is read, read,
// analyze, edit, edit, test, test outcome.
func (sc *simScript) beat(i int, loc *i18n.Localizer) []string {
	if i == 0 {
		return []string{progress(loc.T("worker.sim.planning", "Instruction", sc.title))}
	}
	round, phase := (i-1)/7, (i-1)%7
	a, b := sc.file(2*round), sc.file(2*round+1)
	switch phase {
	case 0:
		return []string{progress(loc.T("worker.sim.reading", "File", a))}
	case 1:
		return []string{progress(loc.T("worker.sim.reading", "File", b))}
	case 2:
		return []string{progress(loc.T("worker.sim.analyzing", "File", a, "Count", 2+sc.rng.IntN(9)))}
	case 3, 4:
		f := a
		if phase == 4 {
			f = b
		}
		sc.edited[f] = true
		return []string{
			transcript.FormatLine(transcript.Event{Type: transcript.EventTool, Tool: "edit", Text: f}),
			progress(loc.T("worker.sim.editing", "File", f, "Added", 1+sc.rng.IntN(40), "Removed", sc.rng.IntN(15))),
		}
	case 5:
		return []string{progress(loc.T("worker.sim.testing", "Command", "go test ./..."))}
	}
	total := 12 + sc.rng.IntN(30)
	// Plain lines, as the test tool itself would print them.
	lines := []string{
		"ok  \texample.com/project/" + dirOf(a) + "\t0." + strconv.Itoa(10+sc.rng.IntN(89)) + "s",
	}
	if sc.fail {
		lines = append(lines, "--- FAIL: TestSimulated (0.00s)")
		return append(lines, progress(loc.T("worker.sim.tests_failed", "Failed", 1+sc.rng.IntN(3), "Total", total)))
	}
	return append(lines, progress(loc.T("worker.sim.tests_passed", "Passed", total, "Total", total)))
}

func progress(text string) string {
	return transcript.FormatLine(transcript.Event{Type: transcript.EventProgress, Text: text})
}

func dirOf(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			return path[:i]
		}
	}
	return "."
}
