// Command fakemodel serves the scripted model endpoint of package
// fakemodel from a JSON script, to run the real CLIs against it by hand
// (the captures in the streams folder were made this way):
//
//	go run ./internal/fakemodel/cmd/fakemodel -script rules.json -log requests.jsonl
//
// The script is a JSON list of rules as package fakemodel defines them.
// It prints the server's URL on its first line and serves until SIGINT or
// SIGTERM; with -log every request is written there as one JSON line.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/daokit/daokit/internal/fakemodel"
)

func main() {
	script := flag.String("script", "", "JSON file with a list of rules")
	logPath := flag.String("log", "", "write every request to this file as JSON lines at exit")
	flag.Parse()
	if err := serve(*script, *logPath); err != nil {
		fmt.Fprintln(os.Stderr, "fakemodel:", err)
		os.Exit(1)
	}
}

func serve(script, logPath string) error {
	var rules []fakemodel.Rule
	if script != "" {
		b, err := os.ReadFile(script)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &rules); err != nil {
			return fmt.Errorf("%s: %w", script, err)
		}
	}
	s, err := fakemodel.New(rules...)
	if err != nil {
		return err
	}
	fmt.Println(s.URL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	s.Close()
	if logPath == "" {
		return nil
	}
	f, err := os.Create(logPath)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, r := range s.Requests() {
		if err := enc.Encode(map[string]any{
			"api": r.API, "method": r.Method, "path": r.Path, "rule": r.Rule, "turn": r.Turn, "side": r.Side,
			"status": r.Status, "answers": r.Answers, "body": json.RawMessage(orNull(r.Body)),
		}); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// orNull keeps a body that is not JSON from breaking the log line.
func orNull(b []byte) []byte {
	if json.Valid(b) {
		return b
	}
	q, _ := json.Marshal(string(b))
	return q
}
