package main

import (
	"runtime"
	"testing"
)

// TestControllerRunsOnOneProcessorUnlessTold: the controller's Go code
// gets one P by default, and GOMAXPROCS, when set, is left to the runtime.
func TestControllerRunsOnOneProcessorUnlessTold(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(before) })

	runtime.GOMAXPROCS(3)
	t.Setenv("GOMAXPROCS", "")
	oneProcessor()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("without GOMAXPROCS: %d processors, want 1", got)
	}

	runtime.GOMAXPROCS(3)
	t.Setenv("GOMAXPROCS", "3")
	oneProcessor()
	if got := runtime.GOMAXPROCS(0); got != 3 {
		t.Errorf("with GOMAXPROCS=3: %d processors, want 3 left alone", got)
	}
}
