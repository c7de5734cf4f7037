package component

import (
	"strconv"
	"time"
)

// Duration renders d compactly in the pane's language ("4m05s",
// "4分05秒"), rounded down to the second; negative durations render as
// their absolute value (the caller says "ago" or "in").
func (e *Env) Duration(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	s := int(d / time.Second)
	two := func(n int) string {
		if n < 10 {
			return "0" + strconv.Itoa(n)
		}
		return strconv.Itoa(n)
	}
	switch {
	case s < 60:
		return e.T("tui.duration.s", "S", strconv.Itoa(s))
	case s < 3600 && s%60 == 0:
		return e.T("tui.duration.m", "M", strconv.Itoa(s/60))
	case s < 3600:
		return e.T("tui.duration.ms", "M", strconv.Itoa(s/60), "S", two(s%60))
	case s < 86400 && s%3600 == 0:
		return e.T("tui.duration.h", "H", strconv.Itoa(s/3600))
	case s < 86400:
		return e.T("tui.duration.hm", "H", strconv.Itoa(s/3600), "M", two(s/60%60))
	default:
		return e.T("tui.duration.dh", "D", strconv.Itoa(s/86400), "H", strconv.Itoa(s/3600%24))
	}
}

// Clock renders t as a time of day in the window's zone.
func (e *Env) Clock(t time.Time) string {
	if t.IsZero() {
		return "--:--:--"
	}
	return t.In(e.zone()).Format("15:04:05")
}

func (e *Env) zone() *time.Location {
	if e.Zone == nil {
		return time.Local
	}
	return e.Zone
}
