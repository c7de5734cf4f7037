// Command genledger writes a large, valid ledger for benchmarks and load
// tests of the tail reader, the watcher and the window:
//
//	go run ./bench/genledger -root /tmp/big -events 1000000
//
// It creates the `daokit init` layout under -root, state documents of a
// run in progress and -events realistic events (about 450 bytes each),
// overwriting any state files already there.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/daokit/daokit/ledger/ledgertest"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "genledger:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("genledger", flag.ContinueOnError)
	root := fs.String("root", "", "ledger root to write (required)")
	events := fs.Int("events", 100000, "number of events to write")
	seed := fs.Uint64("seed", 1, "seed of the generated content")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *root == "" || *events < 0 {
		fs.Usage()
		return fmt.Errorf("-root is required and -events must be >= 0")
	}
	start := time.Now()
	st, err := ledgertest.Generate(*root, ledgertest.Options{Events: *events, Seed: *seed})
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	avg := 0.0
	if st.Events > 0 {
		avg = float64(st.EventsBytes) / float64(st.Events)
	}
	fmt.Printf("wrote %d events (%.1f MB, %.0f bytes/event) to %s in %v\n",
		st.Events, float64(st.EventsBytes)/1e6, avg, *root, elapsed.Round(time.Millisecond))
	return nil
}
