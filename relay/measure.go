package relay

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

// SummarizeLatency returns the summary of samples (nearest-rank
// percentiles). It does not modify samples.
func SummarizeLatency(samples []time.Duration) Latency {
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

// MeasureAcks forwards n instructions one after the other through c and
// returns the latency from send to ack, end to end: socket, controller,
// durable append. text(i) gives the i-th instruction; use a scratch root,
// since the controller really records and routes them.
func MeasureAcks(ctx context.Context, c *Client, n int, text func(i int) string) (Latency, error) {
	samples := make([]time.Duration, 0, n)
	for i := range n {
		start := time.Now()
		if _, err := c.Forward(ctx, text(i)); err != nil {
			return SummarizeLatency(samples), fmt.Errorf("relay: measure acks: instruction %d: %w", i, err)
		}
		samples = append(samples, time.Since(start))
	}
	return SummarizeLatency(samples), nil
}
