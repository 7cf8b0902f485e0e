package kube

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// Event records a Kubernetes event about object (a Node, NodeClaim, NodePool, Pod...) with
// eventType "Normal" or "Warning", Karpenter's reason and a message. It never blocks and never
// fails: events are queued (up to 1,000) and sent in the background, aggregated and rate
// limited by client-go's correlator; when the queue is full, or after Close, they are dropped.
// Events about cluster-scoped objects go to the "default" namespace, as client-go records them.
func (w *Writer) Event(object runtime.Object, eventType, reason, message string) {
	if object == nil {
		return
	}
	w.recorder.Event(object, eventType, reason, message)
}
