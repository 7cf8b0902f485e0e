package scheduling

import (
	"cmp"
	"slices"
)

// queue orders pods as Karpenter does, largest CPU then memory first, and detects when a whole
// pass over the pods that failed placed nothing: then the solve is done.
type queue struct {
	pods []*podData
	head int
	// lastLen is the queue's length when a pod was last pushed back unplaced; meeting the pod
	// again at that length means nothing was placed since.
	lastLen map[*podData]int
}

func newQueue(pods []*podData) *queue {
	sorted := slices.Clone(pods)
	cpu, mem := 0, 1 // the space puts cpu and memory first
	slices.SortStableFunc(sorted, func(a, b *podData) int {
		return cmp.Or(cmp.Compare(b.requests[cpu], a.requests[cpu]), cmp.Compare(b.requests[mem], a.requests[mem]),
			cmp.Compare(a.key, b.key))
	})
	return &queue{pods: sorted, lastLen: map[*podData]int{}}
}

func (q *queue) len() int { return len(q.pods) - q.head }

func (q *queue) pop() (*podData, bool) {
	if q.len() == 0 {
		return nil, false
	}
	p := q.pods[q.head]
	if n, ok := q.lastLen[p]; ok && n == q.len() {
		return nil, false
	}
	q.pods[q.head] = nil
	q.head++
	if q.head > 1024 && q.head*2 > len(q.pods) { // reclaim the consumed prefix
		q.pods = append(q.pods[:0], q.pods[q.head:]...)
		q.head = 0
	}
	return p, true
}

// push puts an unplaced pod back at the end; a relaxed pod is a new chance for every pod.
func (q *queue) push(p *podData, relaxed bool) {
	q.pods = append(q.pods, p)
	if relaxed {
		clear(q.lastLen)
		return
	}
	q.lastLen[p] = q.len()
}

// remaining lists the pods still queued.
func (q *queue) remaining() []*podData { return slices.Clone(q.pods[q.head:]) }
