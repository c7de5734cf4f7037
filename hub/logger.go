package hub

import (
	"fmt"
	"log/slog"
	"sync"
)

// serverLog carries the embedded server's log lines to a slog logger and
// keeps its fatal error: nats-server reports a failed start (a port it
// cannot bind, a store it cannot open) through its logger's Fatalf, which
// in its own binary exits the process; embedded, Start returns it.
type serverLog struct {
	log *slog.Logger

	mu    sync.Mutex
	fatal error
}

func (l *serverLog) Noticef(format string, v ...any) { l.log.Info(fmt.Sprintf(format, v...)) }
func (l *serverLog) Warnf(format string, v ...any)   { l.log.Warn(fmt.Sprintf(format, v...)) }
func (l *serverLog) Errorf(format string, v ...any)  { l.log.Error(fmt.Sprintf(format, v...)) }
func (l *serverLog) Debugf(format string, v ...any)  { l.log.Debug(fmt.Sprintf(format, v...)) }
func (l *serverLog) Tracef(format string, v ...any)  { l.log.Debug(fmt.Sprintf(format, v...)) }

func (l *serverLog) Fatalf(format string, v ...any) {
	err := fmt.Errorf(format, v...)
	l.log.Error(err.Error())
	l.mu.Lock()
	if l.fatal == nil {
		l.fatal = err
	}
	l.mu.Unlock()
}

// fatalErr is the first fatal error the server logged, if any.
func (l *serverLog) fatalErr() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fatal
}
