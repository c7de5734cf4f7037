package relay

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// childEnv, when set, makes the test binary act as a client process instead
// of running tests: the uid test re-executes it as another user.
const (
	childEnv       = "RELAY_TEST_CHILD"
	childSocketEnv = "RELAY_TEST_SOCKET"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "dial" {
		os.Exit(childDial(os.Getenv(childSocketEnv)))
	}
	os.Exit(m.Run())
}

// childDial connects to the socket and prints what happened: the first
// line the server sent and whether it then closed, or why dialling failed.
func childDial(path string) int {
	nc, err := net.Dial("unix", path)
	if err != nil {
		fmt.Printf("dial-error eacces=%v %v\n", errors.Is(err, syscall.EACCES), err)
		return 0
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(waitTimeout))
	// Try to get an instruction in, as an intruder would.
	_, _ = nc.Write([]byte(`{"v":1,"id":"x","type":"instruction","action":"forward","body":{"text":"rm -rf"}}` + "\n"))
	lr := newLineReader(nc, DefaultMaxLine)
	line, err := lr.next()
	if err != nil {
		fmt.Printf("read-error %v\n", err)
		return 0
	}
	fmt.Printf("line %s\n", line)
	if _, err := lr.next(); err != nil {
		fmt.Printf("then-closed\n")
	}
	return 0
}
