package liveness

import (
	"errors"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/daokit/daokit/ledger"
)

// StandingTask is the task id of a controller's standing lease: a lease
// that names no run and says "this controller is alive", renewed on
// every liveness check (the controller registers it; see heal.Held).
const StandingTask = "controller"

// ProcessAlive reports whether a process with pid exists. EPERM means it
// does, as another user's; a pid below 1 names no process (kill(2) would
// read 0 and -1 as groups).
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Controller is what a root says of the controller holding it: the one
// rule by which the window, `daokit send` and a successor controller
// decide whether a controller is alive.
type Controller struct {
	// PID is the process holding the root's lock (0 if none).
	PID int
	// Running reports that process exists.
	Running bool
	// LeasePID is the holder of the newest unexpired ACTIVE standing
	// lease (0 if none).
	LeasePID int
	// Lapsed reports that PID's newest ACTIVE standing lease has
	// expired: it stopped renewing it for a whole TTL.
	Lapsed bool
}

// Live reports a controller process that holds the root: another one
// cannot start, and whoever wants work done talks to this one.
func (c Controller) Live() bool { return c.PID > 0 && c.Running }

// Hung reports a holder that let its standing lease lapse: it is paused,
// stuck in the kernel, or cannot write (a full disk). A successor fences
// it only on a second, independent signal: it does not answer on its
// socket either.
func (c Controller) Hung() bool { return c.PID > 0 && c.Lapsed }

// JudgeController judges the controller pid (running or not) of a root
// whose lease register is reg, at now. It reads nothing: the caller
// names the holder (the lock file's pid, or the kernel's flock holder).
func JudgeController(pid int, running bool, reg *ledger.Leases, now time.Time) Controller {
	c := Controller{PID: max(pid, 0), Running: pid > 0 && running}
	var own *ledger.Lease
	newest := ""
	for i := range reg.Leases {
		l := &reg.Leases[i]
		if l.TaskID != StandingTask || l.Status != ledger.LeaseActive {
			continue
		}
		if pid > 0 && l.PID == pid {
			own = l // records are appended: the last is the newest
		}
		if !l.Expired(now) && l.UpdatedAt >= newest {
			c.LeasePID, newest = l.PID, l.UpdatedAt
		}
	}
	c.Lapsed = own != nil && own.Expired(now)
	return c
}

// ReadController judges root's controller at now by the pid its holder
// wrote into the lock file (a controller that was killed leaves it
// behind, so the process must also exist) and the lease register.
func ReadController(root string, now time.Time) Controller {
	pid := LockFilePID(root)
	var reg ledger.Leases
	if snap := ledger.LoadSnapshot(root); snap.Leases.HasValue() {
		reg = snap.Leases.Value
	}
	return JudgeController(pid, ProcessAlive(pid), &reg, now)
}

// LockFilePID returns the pid the holder of root's lock wrote into the
// lock file, 0 when there is none.
func LockFilePID(root string) int {
	data, err := ledger.Layout{Root: root}.ReadFile(ledger.LockFile)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
