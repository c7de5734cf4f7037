package tui

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/liveness"
	"github.com/daokit/daokit/tui/component/componenttest"
	"github.com/daokit/daokit/tui/component/heartbeat"
	"github.com/daokit/daokit/tui/live"
)

// TestHeartbeatPaneJudgesLikeCheck reads ledgers the Python DAOKit wrote
// (cmd/daokit/testdata/python, see interop_verdicts_test.go there)
// through the window's own feed and ticks the heartbeat pane to moments
// after the run's lease beat: the pane's word is check's verdict
// (liveness.LedgerSignals), not the IDLE the Python tool leaves in
// heartbeat_status.json. An interrupted run reads WARNING at 1000 s
// where the pane said IDLE, and a run killed mid-step reads STALE.
func TestHeartbeatPaneJudgesLikeCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		after time.Duration
		want  string
	}{
		{"interrupted-ttl1200", 10 * time.Second, liveness.HealthActive},
		{"interrupted-ttl1200", 1000 * time.Second, liveness.HealthWarning},
		{"interrupted-ttl1200", 1300 * time.Second, liveness.HealthStale},
		{"killed", 10 * time.Second, liveness.HealthStale},
		{"stale-beside-lease", 0, liveness.HealthStale},
		{"llm", 10 * time.Second, liveness.HealthIdle},
		{"done", 10 * time.Second, liveness.HealthIdle},
	} {
		t.Run(tc.name+"/"+tc.after.String(), func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "cmd", "daokit", "testdata", "python", tc.name))); err != nil {
				t.Fatal(err)
			}
			src := NewLedgerSource(root, 10)
			t.Cleanup(func() { _ = src.Close() })
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			u, err := src.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			beat, err := ledger.ParseTime(u.Snapshot.Leases.Value.Leases[0].LastHeartbeatAt)
			if err != nil {
				t.Fatal(err)
			}
			now := beat.Add(tc.after)
			if tc.name == "stale-beside-lease" {
				now = time.Now() // its second lease beats ten years ahead
			}
			pane := heartbeat.New(componenttest.Env("en", now))
			pane.SetSize(40, 8)
			pane.Update(live.LedgerMsg{Update: u})
			pane.Update(live.TickMsg{Now: now})
			if got := pane.Status(); got != tc.want {
				t.Errorf("pane says %s, want %s:\n%s", got, tc.want, pane.View())
			}
		})
	}
}
