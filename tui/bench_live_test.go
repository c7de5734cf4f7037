package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/ledger"
)

// frameClock pairs the window's frames with the events they first show.
// The window tells it (as the FrameProbe) which events the next frame
// draws; the output writer tells it when a frame reaches the terminal.
// The latency of an event is from its append to that write.
type frameClock struct {
	mu       sync.Mutex
	appended map[string]time.Time
	viewed   []string // drawn by View, not yet written out
	lat      []time.Duration
	viewLat  []time.Duration
	writes   int
}

func newFrameClock() *frameClock { return &frameClock{appended: map[string]time.Time{}} }

func (c *frameClock) append(id string, at time.Time) {
	c.mu.Lock()
	c.appended[id] = at
	c.mu.Unlock()
}

// EventsDrawn implements FrameProbe.
func (c *frameClock) EventsDrawn(events []ledger.Event, _ time.Time) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range events {
		if at, ok := c.appended[e.EventID]; ok {
			c.viewed = append(c.viewed, e.EventID)
			c.viewLat = append(c.viewLat, now.Sub(at))
		}
	}
}

// Write receives the program's output.
func (c *frameClock) Write(p []byte) (int, error) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes++
	for _, id := range c.viewed {
		c.lat = append(c.lat, now.Sub(c.appended[id]))
		delete(c.appended, id)
	}
	c.viewed = c.viewed[:0]
	return len(p), nil
}

// waitFirstFrame waits until the window has painted (the ledger it
// opened is on screen), so that the measurement starts on a settled
// window.
func (c *frameClock) waitFirstFrame(b *testing.B) {
	deadline := time.Now().Add(time.Minute)
	for {
		c.mu.Lock()
		n := c.writes
		c.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("the window never painted")
		}
		runtime.Gosched()
	}
	settle := time.NewTimer(time.Second)
	<-settle.C
}

func (c *frameClock) samples() (frames, views []time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.lat), slices.Clone(c.viewLat)
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(int(float64(len(s))*p), len(s)-1)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// liveWindow runs a real program on root with the real ledger feed, its
// output going to out, painting on demand (or with Bubble Tea's ticker
// renderer). It returns a stop function.
func liveWindow(tb testing.TB, root string, opts Options, out io.Writer, ticker bool) (stop func()) {
	if !ticker {
		return liveOnDemand(tb, root, opts, out)
	}
	stop, _ = liveModel(tb, root, opts, out, 0)
	return stop
}

// liveOnDemand is liveWindow painting on demand, as Run does by default.
func liveOnDemand(tb testing.TB, root string, opts Options, out io.Writer) (stop func()) {
	tb.Helper()
	return liveOnDemandThen(tb, root, opts, out)
}

// liveOnDemandThen is liveOnDemand with msgs sent to the window after its
// size (keys that open a view, say).
func liveOnDemandThen(tb testing.TB, root string, opts Options, out io.Writer, msgs ...tea.Msg) (stop func()) {
	tb.Helper()
	src := NewLedgerSource(root, 5000)
	opts.Feed, opts.Lang, opts.Tick = src, "en", time.Second
	ctx, cancel := context.WithCancel(context.Background())
	w := newFrameWriter(ctx, out, PaintGap)
	opts.Terminal = w
	p := tea.NewProgram(&onDemand{Model: New(ctx, opts), w: w},
		tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithoutSignals(), tea.WithContext(ctx), tea.WithoutRenderer())
	stop = startProgram(p, cancel, w.wait, func() { src.Close() })
	for _, msg := range msgs {
		p.Send(msg)
	}
	return stop
}

// startProgram runs p on a goroutine of its own in a 200×60 window and
// returns what stops it: quit, cancel its context, wait for Run to
// return, then the cleanups in order.
func startProgram(p *tea.Program, cancel context.CancelFunc, cleanups ...func()) (stop func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = p.Run()
	}()
	p.Send(tea.WindowSizeMsg{Width: 200, Height: 60})
	return func() {
		p.Quit()
		cancel()
		<-done
		for _, c := range cleanups {
			c()
		}
	}
}

// millionEvents is the size of the ledger the live benchmarks open.
const millionEvents = 1_000_000

// millionLedger is a ledger root whose events.jsonl already holds
// 1,000,000 events, as a long-lived root does.
func millionLedger(b *testing.B) (string, *ledger.Store) {
	b.Helper()
	root, st := ledgerRoot(b)
	batch := make([]ledger.Event, 0, 20_000)
	at := time.Now().Add(-time.Hour)
	for i := range millionEvents {
		ev := ledger.NewEvent(at, "T", "R", "S1", ledger.EventSystem, ledger.SeverityInfo,
			ledger.ObjectOf("operation", "WORKER_OUTPUT", "message", "old line "+strconv.Itoa(i)))
		batch = append(batch, ev)
		if len(batch) == cap(batch) || i == millionEvents-1 {
			if err := st.AppendEvents(batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return root, st
}

// renderers are the two ways of painting the benchmarks compare: Bubble
// Tea's renderer on its ticker (before) and on demand (after).
var renderers = []struct {
	name   string
	ticker bool
}{{"ticker", true}, {"ondemand", false}}

// liveModel is liveWindow that also returns the model, to be read only
// after stop.
func liveModel(tb testing.TB, root string, opts Options, out io.Writer, fps int) (stop func(), m *Model) {
	tb.Helper()
	src := NewLedgerSource(root, 5000)
	opts.Feed = src
	opts.Lang = "en"
	opts.Tick = time.Second
	ctx, cancel := context.WithCancel(context.Background())
	popts := []tea.ProgramOption{tea.WithInput(nil), tea.WithOutput(out), tea.WithoutSignals(), tea.WithContext(ctx)}
	if fps <= 0 {
		fps = DefaultFPS
	}
	popts = append(popts, tea.WithFPS(fps))
	m = New(ctx, opts)
	return startProgram(tea.NewProgram(m, popts...), cancel, func() { src.Close() }), m
}

// lastSeen is a FrameProbe that remembers whether an event was drawn.
type lastSeen struct {
	want string
	seen chan struct{}
	once sync.Once
}

func (l *lastSeen) EventsDrawn(events []ledger.Event, _ time.Time) {
	if n := len(events); n > 0 && events[n-1].EventID == l.want {
		l.once.Do(func() { close(l.seen) })
	}
}

// BenchmarkAppendToFrameLatency appends 200 events a second to a real
// events.jsonl that a real window follows (fsnotify watcher, feed,
// program at DefaultFPS) and reports the time from each append
// to the frame that first shows the event reaching the terminal, median
// and 99th percentile; "view-" metrics stop at the View that draws it.
func BenchmarkAppendToFrameLatency(b *testing.B) {
	root, st := millionLedger(b)
	for _, r := range renderers {
		b.Run(r.name, func(b *testing.B) { appendToFrame(b, root, st, r.ticker) })
	}
}

func appendToFrame(b *testing.B, root string, st *ledger.Store, ticker bool) {
	const rate, seconds = 200, 3
	clock := newFrameClock()
	opts := testOptions("en")
	opts.Probe = clock
	opts.Styles = nil
	stop := liveWindow(b, root, opts, clock, ticker)
	defer stop()
	clock.waitFirstFrame(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tick := time.NewTicker(time.Second / rate)
		for n := 0; n < rate*seconds; n++ {
			<-tick.C
			ev := ledger.NewEvent(time.Now(), "T", "R", "S1", ledger.EventSystem, ledger.SeverityInfo,
				ledger.ObjectOf("operation", "WORKER_OUTPUT", "message", "line "+strconv.Itoa(n)))
			ev.EventID = fmt.Sprintf("evt_lat_%d_%d", i, n)
			clock.append(ev.EventID, time.Now())
			if err := st.AppendEvent(ev); err != nil {
				b.Fatal(err)
			}
		}
		tick.Stop()
	}
	reportFrames(b, clock, b.N*rate*seconds)
}

// reportFrames lets the last frames out (until 95 % of sent events were
// drawn, at most 2 s) and reports the latencies clock measured.
func reportFrames(b *testing.B, clock *frameClock, sent int) {
	b.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		frames, _ := clock.samples()
		if len(frames) >= sent*95/100 || time.Now().After(deadline) {
			break
		}
		runtime.Gosched()
	}
	b.StopTimer()
	frames, views := clock.samples()
	b.ReportMetric(float64(len(frames)), "events-seen")
	b.ReportMetric(ms(percentile(frames, 0.5)), "ms-median")
	b.ReportMetric(ms(percentile(frames, 0.99)), "ms-p99")
	b.ReportMetric(ms(percentile(views, 0.5)), "ms-view-median")
	b.ReportMetric(ms(percentile(views, 0.99)), "ms-view-p99")
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIdleCPU runs a real window on a quiet ledger for a few seconds
// and reports the share of one core it used (the 1 Hz tick, the stat
// poll, nothing else).
func BenchmarkIdleCPU(b *testing.B) {
	root, _ := millionLedger(b)
	for _, r := range renderers {
		b.Run(r.name, func(b *testing.B) { idleCPU(b, root, r.ticker) })
	}
}

func idleCPU(b *testing.B, root string, ticker bool) {
	stop := liveWindow(b, root, testOptions("en"), io.Discard, ticker)
	defer stop()
	settle := time.NewTimer(time.Second)
	<-settle.C
	b.ResetTimer()
	var used, wall time.Duration
	for i := 0; i < b.N; i++ {
		c0, t0 := cpuTime(), time.Now()
		idle := time.NewTimer(5 * time.Second)
		<-idle.C
		used += cpuTime() - c0
		wall += time.Since(t0)
	}
	b.ReportMetric(100*float64(used)/float64(wall), "%core")
}

// BenchmarkFollowMillionEvents has a separate process append 1,000,000
// events to a ledger that a real window follows, samples the window
// process's memory throughout, and reports the peaks.
func BenchmarkFollowMillionEvents(b *testing.B) {
	const total = 1_000_000
	root, st := ledgerRoot(b)
	st.Close()
	last := &lastSeen{want: fmt.Sprintf("evt_w_%d", total-1), seen: make(chan struct{})}
	opts := testOptions("en")
	opts.Probe = last
	stop, m := liveModel(b, root, opts, io.Discard, 0)
	b.ResetTimer()
	var peakHeap, peakRSS uint64
	var took time.Duration
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperLedgerWriter$")
		cmd.Env = append(os.Environ(), "DAOKIT_TUI_WRITER_ROOT="+root, "DAOKIT_TUI_WRITER_N="+strconv.Itoa(total))
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		sample := time.NewTicker(50 * time.Millisecond)
		for running := true; running; {
			select {
			case err := <-exited:
				if err != nil {
					b.Fatal(err)
				}
				running = false
			case <-sample.C:
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peakHeap = max(peakHeap, ms.HeapInuse+ms.StackInuse)
			peakRSS = max(peakRSS, rssBytes())
		}
		sample.Stop()
		select {
		case <-last.seen:
		case <-time.After(time.Minute):
			b.Fatal("the window never drew the last event")
		}
		took += time.Since(start)
	}
	stop()
	b.ReportMetric(float64(m.Events().Total()), "events-followed")
	b.ReportMetric(float64(peakHeap)/(1<<20), "MB-heap-peak")
	b.ReportMetric(float64(peakRSS)/(1<<20), "MB-rss-peak")
	b.ReportMetric(took.Seconds()/float64(b.N), "s-to-follow")
}

// rssBytes reads the process's resident set from /proc.
func rssBytes() uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestHelperLedgerWriter is the writer process of
// BenchmarkFollowMillionEvents; it does nothing in a normal test run.
func TestHelperLedgerWriter(t *testing.T) {
	root := os.Getenv("DAOKIT_TUI_WRITER_ROOT")
	if root == "" {
		t.Skip("helper process")
	}
	n, _ := strconv.Atoi(os.Getenv("DAOKIT_TUI_WRITER_N"))
	st, err := ledger.Open(root, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	batch := make([]ledger.Event, 0, 2000)
	for i := 0; i < n; i++ {
		ev := ledger.NewEvent(time.Now(), "T", "R", "S1", ledger.EventSystem, ledger.SeverityInfo,
			ledger.ObjectOf("operation", "WORKER_OUTPUT", "message", "line "+strconv.Itoa(i)))
		ev.EventID = fmt.Sprintf("evt_w_%d", i)
		batch = append(batch, ev)
		if len(batch) == cap(batch) || i == n-1 {
			if err := st.AppendEvents(batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}
