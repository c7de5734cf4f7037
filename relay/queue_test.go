package relay

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// drain pops everything and renders it: "x" for a notice, "-N" for a marker.
func drain(q *noticeQueue[string]) []string {
	var out []string
	for {
		v, lost, ok := q.pop()
		if !ok {
			return out
		}
		if lost > 0 {
			v = fmt.Sprintf("-%d", lost)
		}
		out = append(out, v)
	}
}

func TestNoticeQueue(t *testing.T) {
	t.Parallel()
	type op struct {
		key       string
		droppable bool
		val       string
		lost      int // pushLost(lost) instead of push
	}
	out := func(v string) op { return op{droppable: true, val: v} }
	state := func(k, v string) op { return op{key: k, val: v} }
	tests := []struct {
		name     string
		maxCount int
		ops      []op
		want     []string
	}{
		{"fifo", 4, []op{out("a"), out("b"), out("c")}, []string{"a", "b", "c"}},
		{"state replaced, moves to the end", 4, []op{state("r", "r1"), out("a"), state("r", "r2")}, []string{"a", "r2"}},
		{"output dropped when full, marker at the end", 2, []op{out("a"), out("b"), out("c"), out("d")}, []string{"a", "b", "-2"}},
		{"marker then more after draining room", 2, []op{out("a"), out("b"), out("c"), state("r", "r1")}, []string{"-1", "b", "-1", "r1"}},
		{"state evicts the oldest output in place", 3, []op{out("a"), state("s", "s1"), out("b"), state("t", "t1")}, []string{"-1", "s1", "b", "t1"}},
		{"state evicts the oldest state when no output", 2, []op{state("s", "s1"), state("t", "t1"), state("u", "u1")}, []string{"-1", "t1", "u1"}},
		{"adjacent markers merge", 2, []op{out("a"), out("b"), state("s", "s1"), state("t", "t1")}, []string{"-2", "s1", "t1"}},
		{"upstream losses join the end marker", 3, []op{out("a"), {lost: 5}, {lost: 2}, out("b")}, []string{"a", "-7", "b"}},
		{"replacing a state between markers merges them", 2, []op{out("a"), state("s", "s1"), out("x"), state("t", "t1"), state("s", "s2")}, []string{"-2", "t1", "s2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q := newNoticeQueue[string](tt.maxCount, 1<<20, nil)
			for _, o := range tt.ops {
				if o.lost > 0 {
					q.pushLost(o.lost)
					continue
				}
				q.push(o.key, o.droppable, 1, o.val)
			}
			if got := drain(q); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNoticeQueueByteCap(t *testing.T) {
	t.Parallel()
	q := newNoticeQueue[string](100, 10, nil)
	q.push("", true, 6, "a")
	q.push("", true, 6, "b") // would make 12 bytes
	q.push("big", false, 11, "c")
	if got, want := drain(q), []string{"a", "-2"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestNoticeQueueAccounting pushes at random and checks the invariants:
// the queue never holds more than its caps, markers never touch, and every
// notice pushed is delivered, replaced by a newer one of its key, or
// counted in a marker.
func TestNoticeQueueAccounting(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	const maxCount = 16
	q := newNoticeQueue[string](maxCount, 1<<20, nil)
	pushed, delivered, lost, replaced := 0, 0, 0, 0
	for i := range 20000 {
		if r.IntN(3) == 0 {
			v, n, ok := q.pop()
			if ok && n > 0 {
				lost += n
			} else if ok {
				delivered++
				_ = v
			}
			continue
		}
		key := ""
		if r.IntN(4) == 0 {
			key = fmt.Sprint("k", r.IntN(5))
			if _, ok := q.byKey[key]; ok {
				replaced++
			}
		}
		q.push(key, key == "", 1, fmt.Sprint(i))
		pushed++
		if q.count > maxCount {
			t.Fatalf("after push %d: %d queued, want at most %d", i, q.count, maxCount)
		}
		prevMarker := false
		for el := q.items.Front(); el != nil; el = el.Next() {
			m := el.Value.(*queued[string]).lost > 0
			if m && prevMarker {
				t.Fatalf("after push %d: adjacent markers", i)
			}
			prevMarker = m
		}
	}
	for _, v := range drain(q) {
		if v[0] == '-' {
			var n int
			fmt.Sscanf(v, "-%d", &n)
			lost += n
		} else {
			delivered++
		}
	}
	if delivered+lost+replaced != pushed {
		t.Errorf("delivered %d + lost %d + replaced %d = %d, want %d pushed", delivered, lost, replaced, delivered+lost+replaced, pushed)
	}
}
