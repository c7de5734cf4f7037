// Package ptytest opens pseudo-terminals for tests that check what a
// command sends to a terminal, byte for byte.
package ptytest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Open returns a new pseudo-terminal: the master end the test reads, and
// the terminal end a command writes to. Output processing is off (no
// "\n" → "\r\n"), so the master reads exactly the bytes written. Both
// ends are closed when the test ends; a test closes the terminal end
// itself once the command holds it, so that reading the master ends.
func Open(tb testing.TB) (master, term *os.File) {
	tb.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		tb.Skipf("no pseudo-terminals here: %v", err)
	}
	tb.Cleanup(func() { master.Close() })
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		tb.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		tb.Fatalf("pty number: %v", err)
	}
	term, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		tb.Fatalf("open pty: %v", err)
	}
	tb.Cleanup(func() { term.Close() })
	tio, err := unix.IoctlGetTermios(int(term.Fd()), unix.TCGETS)
	if err != nil {
		tb.Fatalf("termios: %v", err)
	}
	tio.Oflag &^= unix.OPOST
	if err := unix.IoctlSetTermios(int(term.Fd()), unix.TCSETS, tio); err != nil {
		tb.Fatalf("termios: %v", err)
	}
	return master, term
}

// Drain reads master in the background until every holder of the
// terminal end has closed it; wait returns what was read.
func Drain(master *os.File) (wait func() ([]byte, error)) {
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(&out, master)
		// Linux ends a master's reads with EIO once the terminal end is
		// closed and the buffered bytes are read.
		if errors.Is(err, syscall.EIO) {
			err = nil
		}
		done <- err
	}()
	return func() ([]byte, error) {
		err := <-done
		return out.Bytes(), err
	}
}
