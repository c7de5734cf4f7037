package worker

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/daokit/daokit/worker/transcript"
)

// onExits collects what OnExit hears; the channel holds every call.
func onExits(spec *Spec) chan Exit {
	ch := make(chan Exit, 4)
	spec.OnExit = func(e Exit) { ch <- e }
	return ch
}

// OnExit hears how the leader exited, once; BaseEnv replaces the
// inherited environment.
func TestOnExitHearsTheExit(t *testing.T) {
	spec := shSpec(`echo "HOME=$HOME KEEP=$KEEP"; exit 3`)
	spec.BaseEnv = []string{"KEEP=yes", "PATH=" + os.Getenv("PATH")}
	heard := onExits(&spec)
	p := start(t, context.Background(), spec)
	var out []string
	for _, rec := range collect(t, p) {
		if rec.Status != transcript.StatusGap {
			out = append(out, rec.Text)
		}
	}
	r := p.Wait()
	close(heard)
	var got []Exit
	for e := range heard {
		got = append(got, e)
	}
	if len(got) != 1 || got[0].ExitCode != 3 || got[0].Signal != 0 || got[0].Stopped != transcript.StopNone || got[0].PID != r.PID {
		t.Errorf("OnExit heard %+v, result %+v", got, r)
	}
	if strings.Join(out, "\n") != "HOME= KEEP=yes" {
		t.Errorf("the worker saw %q, want only BaseEnv", out)
	}
}

// A worker daokit stopped is heard with the stop's cause.
func TestOnExitHearsTheStop(t *testing.T) {
	spec := shSpec("exec sleep 600")
	heard := onExits(&spec)
	p := start(t, context.Background(), spec)
	p.Stop(transcript.StopHung)
	collect(t, p)
	p.Wait()
	close(heard)
	var got []Exit
	for e := range heard {
		got = append(got, e)
	}
	if len(got) != 1 || got[0].Stopped != transcript.StopHung || got[0].Signal != syscall.SIGTERM && got[0].Signal != syscall.SIGKILL {
		t.Errorf("a stopped worker's OnExit heard %+v", got)
	}
}
