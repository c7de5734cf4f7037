package steps

import (
	"encoding/json"
	"time"

	"github.com/nats-io/nats.go"
)

// pulse keeps a relay from being judged hung for what its step does on
// another host. Its controller judges the relay as any worker: WARNING
// after warning_after without output, STALE (stopped, the step run
// again) after stale_after without output and without CPU progress of
// the relay's process. Neither signal sees the step: one waiting on the
// work queue for a free agent is not hung, yet the relay is silent and
// idle; and the CPU of a step that computes without printing is spent on
// its agent host, not in the relay. So the relay prints a line of its
// own:
//
//   - every warning_after/2 while no agent has started its dispatch (a
//     queued step is neither warned about nor stale);
//   - once started, when no line came for stale_after/2 and the agent's
//     beats (TypeBeat) show the step's CPU time advanced since the
//     relay's last line: a step that computes may be warned about, as a
//     silent local worker is, but is not judged stale. One whose beats
//     stop (its agent cut off) or show no progress gets no line, and is
//     judged stale as before: after its last beats, at most one line
//     for the CPU time they showed.
//
// Its methods are called on the relay's goroutine only; a nil pulse
// (no thresholds) does nothing.
type pulse struct {
	o     RelayIO
	lane  string
	since time.Time // when the relay began to wait for an agent
	timer *time.Timer

	printed  time.Time // the relay's last line, or its start
	agent    string    // the agent of the current delivery
	delivery int       // the current delivery, 0 before any started
	base     cpuAt     // the step's CPU time at the relay's last line
	last     cpuAt     // the current delivery's last beat
}

// cpuAt is the CPU time a step had used, and when the relay heard so;
// known is false until a beat said it.
type cpuAt struct {
	cpu   time.Duration
	at    time.Time
	known bool
}

// newPulse returns the pulse of a relay starting now for lane, nil when
// o sets no threshold with its line.
func newPulse(o RelayIO, lane string, now time.Time) *pulse {
	if (o.WarningAfter <= 0 || o.Waiting == nil) && (o.StaleAfter <= 0 || o.Computing == nil) {
		return nil
	}
	p := &pulse{o: o, lane: lane, since: now, printed: now, base: cpuAt{at: now}}
	p.timer = time.NewTimer(p.due(now).Sub(now))
	return p
}

// C fires when the pulse is due to look at the step again.
func (p *pulse) C() <-chan time.Time {
	if p == nil {
		return nil
	}
	return p.timer.C
}

// stop releases the timer.
func (p *pulse) stop() {
	if p != nil {
		p.timer.Stop()
	}
}

// said notes that the relay printed a line at now: the silence starts
// again, and so does the CPU time a later line accounts for.
func (p *pulse) said(now time.Time) {
	if p == nil {
		return
	}
	p.printed = now
	p.base = cpuAt{cpu: p.last.cpu, at: now, known: p.last.known}
}

// started notes that delivery began on agent at now: its process's CPU
// time is known from its first beat on (what the process used to start
// is no sign that it computes).
func (p *pulse) started(agent string, delivery int, now time.Time) {
	if p == nil {
		return
	}
	p.agent, p.delivery = agent, delivery
	p.last, p.base = cpuAt{}, cpuAt{at: now}
}

// beat takes an agent's beat, heard at now.
func (p *pulse) beat(r Record, now time.Time) {
	if p == nil || p.delivery == 0 || r.Delivery != p.delivery {
		return
	}
	cpu := time.Duration(r.CPUMillis) * time.Millisecond
	if !p.base.known {
		p.base.cpu, p.base.known = cpu, true
	}
	p.last = cpuAt{cpu: cpu, at: now, known: true}
}

// fire looks at the step when the timer fired (at now), prints the line
// that is due, if any, and sets the timer again.
func (p *pulse) fire(now time.Time) {
	switch {
	case now.Before(p.due(now)):
		// A line came since the timer was set.
	case p.delivery == 0:
		p.o.Waiting(p.lane, now.Sub(p.since))
		p.said(now)
	case p.last.at.After(p.base.at) && p.last.cpu > p.base.cpu:
		p.o.Computing(p.agent, p.last.cpu-p.base.cpu, now.Sub(p.base.at))
		p.said(now)
	}
	next := p.due(now)
	if !next.After(now) {
		// Silent, and no progress to say: looked at again a quarter of
		// stale_after later, should the step compute again.
		next = now.Add(max(p.o.StaleAfter/4, time.Millisecond))
	}
	p.timer.Reset(next.Sub(now))
}

// due is when the next line is due if nothing is printed before: half
// the threshold after the last line (warning_after while the step
// waits for an agent, stale_after once it runs); in an hour (looked at
// again, harmlessly) when that threshold or its line is not set.
func (p *pulse) due(now time.Time) time.Time {
	th, says := p.o.StaleAfter, p.o.Computing != nil
	if p.delivery == 0 {
		th, says = p.o.WarningAfter, p.o.Waiting != nil
	}
	if th <= 0 || !says {
		return now.Add(time.Hour)
	}
	return p.printed.Add(th / 2)
}

// ListenBeats hands the beats of dispatch of key's step to out until the
// returned subscription is unsubscribed; one the relay has no room for
// is dropped (the next says more).
func (c *Conn) ListenBeats(key string, dispatch int, out chan<- Record) (*nats.Subscription, error) {
	return c.NC.Subscribe(c.LiveSubject(key), func(m *nats.Msg) {
		var r Record
		if json.Unmarshal(m.Data, &r) != nil || r.Type != TypeBeat || r.Dispatch != dispatch {
			return
		}
		select {
		case out <- r:
		default:
		}
	})
}
