package controller

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/internal/fakegithub"
	"github.com/daokit/daokit/internal/fakegitlab"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// reviewForge is one forge the review-comments test runs on: the loop's
// configuration, a way to hold the request that opens the change
// request, how many exist, and how people review the first one.
type reviewForge struct {
	envDir  string
	bare    string
	cfg     config.Config
	hold    func(hold, holding chan struct{})
	opened  func() int
	posts   func() int
	comment func()
}

func githubReviewForge(t *testing.T) reviewForge {
	rig := newPRRig(t)
	gh := rig.gh
	return reviewForge{envDir: rig.envDir, bare: rig.bare, cfg: rig.loopConfig(),
		hold: func(hold, holding chan struct{}) {
			gh.Inject(fakegithub.Fault{Method: "POST", PathSuffix: "/pulls", Hold: hold, Holding: holding})
		},
		opened: func() int { return len(gh.Pulls("octo/hello")) },
		posts:  rig.posts,
		comment: func() {
			n := gh.Pulls("octo/hello")[0].Number
			gh.LineComment("octo/hello", n, "bob", "notes.txt", 3, "say why iteration 2 changed")
			gh.LineComment("octo/hello", n, "octo", "notes.txt", 1, "summary\n\n<!-- daokit {\"actor\":\"controller\"} -->")
			gh.Review("octo/hello", n, "carl", "CHANGES_REQUESTED", "log the empty body too")
			gh.Review("octo/hello", n, "dan", "PENDING", "a draft nobody sent")
		}}
}

func gitlabReviewForge(t *testing.T) reviewForge {
	rig, gl := newGitLabRig(t)
	posts := func() int {
		n := 0
		for _, r := range gl.Requests() {
			if r.Method == "POST" && strings.HasSuffix(r.Path, "/merge_requests") {
				n++
			}
		}
		return n
	}
	return reviewForge{envDir: rig.envDir, bare: rig.bare, cfg: gitlabConfig(rig, gl),
		hold: func(hold, holding chan struct{}) {
			gl.Inject(fakegitlab.Fault{Method: "POST", PathSuffix: "/merge_requests", Hold: hold, Holding: holding})
		},
		opened: func() int { return len(gl.MergeRequests(glProject)) },
		posts:  posts,
		comment: func() {
			first := gl.ReviewNote(glProject, 1, "bob", "say why iteration 2 changed", "notes.txt", 3, 0)
			gl.ReviewNote(glProject, 1, "ann", "summary\n\n<!-- daokit {\"actor\":\"controller\"} -->", "", 0, 0)
			gl.ReviewNote(glProject, 1, "carl", "log the empty body too", "", 0, 0)
			gl.ReviewNote(glProject, 1, "dan", "and a test", "", 0, first)
		}}
}

// TestPullRequestReviewBecomesTheNextFindings, on GitHub and GitLab:
// the change's pull request (merge request) exists while it waits for
// review (the controller died after the forge opened it, before the
// answer came), and people reviewed it there. The person's /reject
// (with a reason on GitHub, without one on GitLab) starts another
// iteration whose coder is told the reason and the review's comments as
// findings, file:line first, daokit's own and
// drafts left out; the next accept pushes the new iteration to the same
// change request, and there is still one.
func TestPullRequestReviewBecomesTheNextFindings(t *testing.T) {
	for name, forge := range map[string]func(*testing.T) reviewForge{"github": githubReviewForge, "gitlab": gitlabReviewForge} {
		t.Run(name, func(t *testing.T) {
			f := forge(t)
			envDir := f.envDir
			for i := range f.cfg.Lanes {
				if f.cfg.Lanes[i].Name == "coder" {
					f.cfg.Lanes[i].Command = []string{"sh", "-c",
						`cat > "$ENV_DIR/brief-$DAOKIT_ITERATION.txt"; echo "iteration $DAOKIT_ITERATION" >> notes.txt`}
				}
			}
			root := t.TempDir()
			hold, holding := make(chan struct{}), make(chan struct{})
			f.hold(hold, holding)
			h := startHarness(t, root, f.cfg)
			ack := h.forward("handle the empty body")
			h.opFor(ack.TaskID, OpReviewPending)
			if _, err := h.control(relay.Control{Kind: relay.ControlAccept}); err != nil {
				t.Fatal(err)
			}
			select {
			case <-holding:
			case <-time.After(20 * time.Second):
				t.Fatal("the change request was never asked for")
			}
			h.stop()
			close(hold)
			waitUntil(t, "the forge opens the held change request", func() bool { return f.opened() == 1 })
			f.comment()

			h2 := startHarness(t, root, f.cfg)
			reviews := func(n int) {
				t.Helper()
				h2.waitFor("review", func(e ledger.Event) bool {
					return e.TaskID == ack.TaskID && op(e) == OpReviewPending &&
						count(h2.events(), func(e ledger.Event) bool { return e.TaskID == ack.TaskID && op(e) == OpReviewPending }) == n
				})
			}
			reviews(2)
			// On GitHub the person gives a reason, on GitLab none: the
			// review's comments are the findings either way.
			reason := map[string]string{"github": "also log it"}[name]
			if _, err := h2.control(relay.Control{Kind: relay.ControlReject, TaskID: ack.TaskID, RunID: ack.RunID, Reason: reason}); err != nil {
				t.Fatalf("reject after the restart: %v", err)
			}
			read := h2.opFor(ack.TaskID, OpPullRequestReview)
			reviews(3)
			brief, err := os.ReadFile(filepath.Join(envDir, "brief-3.txt"))
			if err != nil {
				t.Fatalf("no third iteration: %v", err)
			}
			want := []string{"notes.txt:3: say why iteration 2 changed (@bob)", "log the empty body too (@carl)"}
			if name == "gitlab" {
				want = append(want, "notes.txt:3: and a test (@dan)")
			} else {
				want = append(want, "- also log it")
			}
			for _, w := range want {
				if !strings.Contains(string(brief), w) {
					t.Errorf("the third iteration's brief lacks %q:\n%s", w, brief)
				}
			}
			for _, never := range []string{"summary", "a draft nobody sent", "daokit {"} {
				if strings.Contains(string(brief), never) {
					t.Errorf("the third iteration's brief holds %q:\n%s", never, brief)
				}
			}
			if got := read.Payload.String("forge"); got != name || read.Payload.String("url") == "" {
				t.Errorf("PULL_REQUEST_REVIEW %v", read.Payload)
			}
			if _, err := h2.control(relay.Control{Kind: relay.ControlAccept, TaskID: ack.TaskID, RunID: ack.RunID}); err != nil {
				t.Fatal(err)
			}
			if end := h2.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
				t.Fatalf("run ended %v", end.Payload)
			}
			if f.opened() != 1 || f.posts() != 1 {
				t.Fatalf("%d change requests after %d POSTs, want one of each", f.opened(), f.posts())
			}
			if b, _ := os.ReadFile(filepath.Join(envDir, "brief-4.txt")); b != nil {
				t.Error("a fourth iteration ran")
			}
		})
	}
}
