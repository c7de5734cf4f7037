package relay

import (
	"context"
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
	switch os.Getenv(childEnv) {
	case "dial":
		os.Exit(childDial(os.Getenv(childSocketEnv)))
	case "client":
		os.Exit(childClient(os.Getenv(childSocketEnv)))
	}
	os.Exit(m.Run())
}

// childClient dials with a real Client and prints the code it got and
// whether it got it at once, instead of after its wait ran out.
func childClient(path string) int {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	start := time.Now()
	c, err := Dial(ctx, "", ClientConfig{SocketPath: path})
	if err == nil {
		_ = c.Close()
	}
	fmt.Printf("client code=%s quick=%v\n", CodeOf(err), time.Since(start) < waitTimeout/2)
	return 0
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
