package config

import (
	"fmt"
	"strconv"
	"strings"
)

// CallbackKind is what a [[workflow.callbacks]] entry is.
type CallbackKind string

// The callback kinds.
const (
	// CallbackCommand is a program the controller starts and writes one
	// JSON line per event to (the default).
	CallbackCommand CallbackKind = "command"
	// CallbackDebug is the built-in debug callback: every event as a
	// JSON line in a log file under the run's artifacts.
	CallbackDebug CallbackKind = "debug"
)

// CallbackKinds lists the callback kinds in documentation order.
func CallbackKinds() []CallbackKind { return []CallbackKind{CallbackCommand, CallbackDebug} }

// What a callback listens to (workflow.callbacks[].events).
const (
	// CallbackEventsRun: the callback events of one run's workflow; the
	// callback is started once per run (the default).
	CallbackEventsRun = "run"
	// CallbackEventsAll: the controller's event stream, every event of
	// every run as the ledger records it; the callback is started once
	// per controller.
	CallbackEventsAll = "all"
)

// CallbackEvents lists the values of events in documentation order.
func CallbackEvents() []string { return []string{CallbackEventsRun, CallbackEventsAll} }

// Bounds of a callback's queue.
const (
	DefaultCallbackQueue = 1024
	MaxCallbackQueue     = 65536
)

// Callback is one [[workflow.callbacks]] entry: an observer anyone can
// add without changing Go code. It sees what the built-in callbacks see,
// through a bounded queue of its own, and never slows the run: what it
// cannot take in time is dropped and counted.
type Callback struct {
	// Name identifies the callback in the ledger and names its log file:
	// 1 to 64 of A-Z a-z 0-9 . _ -. Required; unique.
	Name string `toml:"name"`
	// Kind is command (the default) or debug.
	Kind CallbackKind `toml:"kind"`
	// Command is the program and its arguments (kind command; required
	// there, refused for debug).
	Command []string `toml:"command"`
	// Events is run (the default: one run's workflow callbacks, one
	// process per run) or all (the controller's event stream: every
	// ledger event of every run, one process per controller).
	Events string `toml:"events"`
	// Dir is the command's working directory, relative to the ledger
	// root unless absolute. Default "." (the root).
	Dir string `toml:"dir"`
	// Env adds to (and overrides) the controller's environment.
	Env Env `toml:"env"`
	// Lines: the callback hears OnText, the agents' lines (the bulk of
	// the events). Default true; false keeps to the lifecycle, tool uses
	// and results. Only for events = "run".
	Lines bool `toml:"lines"`
	// Queue is how many lines may wait for the callback before more are
	// dropped (and counted). Default 1024; 1 to 65536.
	Queue int `toml:"queue"`
}

// Listens returns what the callback listens to: CallbackEventsRun when
// not set.
func (cb Callback) Listens() string {
	if cb.Events == "" {
		return CallbackEventsRun
	}
	return cb.Events
}

// Type returns the callback's kind: CallbackCommand when not set.
func (cb Callback) Type() CallbackKind {
	if cb.Kind == "" {
		return CallbackCommand
	}
	return cb.Kind
}

func decodeCallback(t *table) Callback {
	cb := Callback{Dir: ".", Queue: DefaultCallbackQueue, Lines: true}
	t.str("name", &cb.Name)
	var kind string
	if t.str("kind", &kind) {
		cb.Kind = CallbackKind(kind)
	}
	t.strings("command", &cb.Command)
	t.str("events", &cb.Events)
	t.str("dir", &cb.Dir)
	t.env("env", &cb.Env)
	t.boolean("lines", &cb.Lines)
	t.integer("queue", &cb.Queue)
	t.done()
	return cb
}

// validateCallbacks checks [[workflow.callbacks]]: a unique name, a known
// kind and events, a command exactly when the kind runs one, a queue
// within bounds.
func (c *Config) validateCallbacks(p *problems) {
	first := map[string]string{}
	for i, cb := range c.Workflow.Callbacks {
		key := fmt.Sprintf("workflow.callbacks[%d]", i)
		checkName(p, key+".name", cb.Name, first)
		switch cb.Type() {
		case CallbackCommand:
			checkArgv(p, key+".command", cb.Command, true)
		case CallbackDebug:
			if len(cb.Command) > 0 {
				p.add(&Error{Code: CodeCallbackCommand, Key: key + ".command", Value: show(string(cb.Type()))})
			}
		default:
			names := make([]string, 0, 2)
			for _, k := range CallbackKinds() {
				names = append(names, string(k))
			}
			p.add(&Error{Code: CodeEnum, Key: key + ".kind", Value: show(string(cb.Kind)), Want: strings.Join(names, ", ")})
		}
		if l := cb.Listens(); l != CallbackEventsRun && l != CallbackEventsAll {
			p.add(&Error{Code: CodeEnum, Key: key + ".events", Value: show(cb.Events), Want: strings.Join(CallbackEvents(), ", ")})
		}
		checkEnv(p, key+".env", cb.Env)
		switch {
		case cb.Queue < 1:
			p.add(&Error{Code: CodeTooSmall, Key: key + ".queue", Value: strconv.Itoa(cb.Queue), Want: "1"})
		case cb.Queue > MaxCallbackQueue:
			p.add(&Error{Code: CodeTooLarge, Key: key + ".queue", Value: strconv.Itoa(cb.Queue), Want: strconv.Itoa(MaxCallbackQueue)})
		}
	}
}
