package ui

import (
	"slices"
	"sync"
	"testing"
)

func TestInbox(t *testing.T) {
	tests := []struct {
		name   string
		pushed []int
		popped int // items popped one by one before takeAll
		want   []int
	}{
		{"empty", nil, 0, nil},
		{"takeAll keeps order", []int{1, 2, 3}, 0, []int{1, 2, 3}},
		{"pop takes the oldest", []int{1, 2, 3}, 2, []int{3}},
		{"pop past the end", []int{1}, 3, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			woken := make(chan struct{}, 1)
			b := newInbox[int](woken)
			for _, x := range tc.pushed {
				b.push(x)
			}
			select {
			case <-woken:
				if len(tc.pushed) == 0 {
					t.Fatal("woken with nothing pushed")
				}
			default:
				if len(tc.pushed) > 0 {
					t.Fatal("push did not wake the drainer")
				}
			}
			for i := range tc.popped {
				x, ok := b.pop()
				if wantOK := i < len(tc.pushed); ok != wantOK || (ok && x != tc.pushed[i]) {
					t.Fatalf("pop %d = %d, %v; want %v", i, x, ok, wantOK)
				}
			}
			if got := b.takeAll(); !slices.Equal(got, tc.want) {
				t.Errorf("takeAll = %v, want %v", got, tc.want)
			}
			if !b.empty() {
				t.Error("not empty after takeAll")
			}
		})
	}
}

// TestInboxConcurrentPush loses nothing pushed from many goroutines (run with -race).
func TestInboxConcurrentPush(t *testing.T) {
	b := newInbox[int](make(chan struct{}, 1))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				b.push(g*100 + i)
			}
		})
	}
	wg.Wait()
	got := b.takeAll()
	slices.Sort(got)
	if len(got) != 800 || got[0] != 0 || got[799] != 799 {
		t.Fatalf("took %d items, want 800 distinct", len(got))
	}
}

type stubView struct {
	view
	name   string
	closed *[]string
}

func (v stubView) close() { *v.closed = append(*v.closed, v.name) }

func TestViews(t *testing.T) {
	var closed []string
	changes := 0
	vs := &views{changed: func() { changes++ }}
	v := func(name string) view { return stubView{name: name, closed: &closed} }
	steps := []struct {
		do         func()
		top        string
		depth      int
		closed     []string
		changesNow int
	}{
		{func() { vs.reset(v("dashboard")) }, "dashboard", 1, nil, 1},
		{func() { vs.push(v("nodes")) }, "nodes", 2, nil, 2},
		{func() { vs.push(v("pods")) }, "pods", 3, nil, 3},
		{func() { vs.pop() }, "nodes", 2, []string{"pods"}, 4},
		{func() { vs.pop() }, "dashboard", 1, []string{"pods", "nodes"}, 5},
		{func() { vs.pop() }, "dashboard", 1, []string{"pods", "nodes"}, 5}, // the first view stays
		{func() { vs.push(v("logs")) }, "logs", 2, []string{"pods", "nodes"}, 6},
		{func() { vs.reset(v("pools")) }, "pools", 1, []string{"pods", "nodes", "dashboard", "logs"}, 7},
	}
	for i, s := range steps {
		s.do()
		if got := vs.top().(stubView).name; got != s.top || len(vs.stack) != s.depth || !slices.Equal(closed, s.closed) || changes != s.changesNow {
			t.Fatalf("step %d: top %s depth %d closed %v changes %d; want %s %d %v %d", i, got, len(vs.stack), closed, changes, s.top, s.depth, s.closed, s.changesNow)
		}
	}
}
