package e2e

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/relay"
)

// stuckObservers is how many observers TestObserversThatNeverReadCannotStopASend
// opens: more than the controller's 1,024 connection slots.
const stuckObservers = 1100

// TestObserversThatNeverReadCannotStopASend fills a real controller with
// 1,100 connections that observe and then never read again: a send is
// still answered within its 1 s timeout, because observers cannot take
// the slots kept for requests.
func TestObserversThatNeverReadCannotStopASend(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 1,100 connections")
	}
	root := newRoot(t, simConfig("200ms"))
	ctl := startController(t, root)
	defer ctl.stop()
	sock := socketOf(t, root)
	observing, refused := 0, 0
	for i := range stuckObservers {
		c, err := dialRetry(sock)
		if err != nil {
			t.Fatalf("observer %d: %v", i, err)
		}
		defer c.Close()
		// The hello and the answer to the observe are read, so that the
		// observer is in place before the send; nothing after them is.
		// A connection the controller turns away (busy) counts as refused.
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		br := bufio.NewReader(c)
		hello, err := br.ReadString('\n')
		if err != nil || strings.Contains(hello, `"busy"`) {
			refused++
			continue
		}
		if _, err := fmt.Fprintf(c, `{"v":1,"id":"observer-%d","type":"observe","action":"observe"}`+"\n", i); err != nil {
			refused++
			continue
		}
		if reply, err := br.ReadString('\n'); err != nil || strings.Contains(reply, `"busy"`) {
			refused++
			continue
		}
		observing++
	}
	t.Logf("%d observers in place that never read, %d refused", observing, refused)

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	client, err := relay.Dial(ctx, root, relay.DefaultClientConfig())
	if err != nil {
		t.Fatalf("send could not connect: %v", err)
	}
	defer client.Close()
	ack, err := client.Forward(ctx, "while observers fill the controller")
	if err != nil {
		t.Fatalf("send not answered within 1 s: %v", err)
	}
	if ack.TaskID == "" {
		t.Fatalf("ack without a task: %+v", ack)
	}
}
