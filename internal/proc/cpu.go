package proc

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of the times in /proc/<pid>/stat (USER_HZ): 100 on
// every architecture Linux runs Go on, whatever the kernel's own HZ.
const userHZ = 100

// CPUTime returns the CPU time pid used: its user and system time and
// that of its children it waited for (utime+stime+cutime+cstime of
// /proc/<pid>/stat), which is how the liveness of a worker tells one
// that computes without printing (busy) from one that waits on nothing
// (hung). A compiler a build waited for counts once it ended. It reports
// false when the stat cannot be read (the process is gone, no /proc).
func CPUTime(pid int) (time.Duration, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name may contain spaces and parentheses: fields start
	// after the last ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(s[i+1:])
	// After ')' field 0 is state (stat field 3); utime..cstime are stat
	// fields 14..17, i.e. indexes 11..14 here.
	if len(fields) < 15 {
		return 0, false
	}
	var ticks int64
	for _, f := range fields[11:15] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, false
		}
		ticks += n
	}
	return time.Duration(ticks) * (time.Second / userHZ), true
}
