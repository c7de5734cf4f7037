// Package latency measures acknowledgement latency for the relay's, the
// controller's and the end-to-end benchmarks. It is test-only: nothing
// the binary does measures itself. It imports nothing of ours and takes
// the send as a function, so that relay's own tests can use it without
// an import cycle (relaytest imports relay).
package latency

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Latency summarises round-trip times.
type Latency struct {
	N                          int
	Min, Median, P90, P99, Max time.Duration
	Mean                       time.Duration
}

// Summarize returns the summary of samples (nearest-rank
// percentiles). It does not modify samples.
func Summarize(samples []time.Duration) Latency {
	if len(samples) == 0 {
		return Latency{}
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	rank := func(p float64) time.Duration {
		i := int(p*float64(len(s))+0.5) - 1
		return s[min(max(i, 0), len(s)-1)]
	}
	return Latency{
		N: len(s), Min: s[0], Max: s[len(s)-1],
		Median: rank(0.50), P90: rank(0.90), P99: rank(0.99),
		Mean: sum / time.Duration(len(s)),
	}
}

// MeasureAcks sends n instructions one after the other through forward
// (a relay client's Forward, whose reply is the ack) and returns the
// latency from send to ack, end to end: socket, controller, durable
// append. text(i) gives the i-th instruction; use a scratch root, since
// the controller really records and routes them.
func MeasureAcks(ctx context.Context, forward func(context.Context, string) error, n int, text func(i int) string) (Latency, error) {
	samples := make([]time.Duration, 0, n)
	for i := range n {
		start := time.Now()
		if err := forward(ctx, text(i)); err != nil {
			return Summarize(samples), fmt.Errorf("latency: measure acks: instruction %d: %w", i, err)
		}
		samples = append(samples, time.Since(start))
	}
	return Summarize(samples), nil
}
