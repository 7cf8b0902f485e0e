package state

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// NodeClass is a cloud provider's node class (an EC2NodeClass on AWS) as the engine keeps it. As
// Karpenter's core keeps node classes neutral, the engine reads only its name and its status
// conditions; its spec and the rest of its status are the cloud provider's.
type NodeClass interface {
	metav1.Object
	runtime.Object
	// StatusConditions are its status conditions, ConditionReady among them.
	StatusConditions() []metav1.Condition
}

// ConditionReady is the condition a node class says it can launch with (Karpenter's
// status.ConditionReady).
const ConditionReady = "Ready"

// AsNodeClass adapts a change to the cloud provider's own node class type (*EC2NodeClass) to the
// NodeClass the writer hands over; a node class of another type is an error, never a panic.
func AsNodeClass[T NodeClass](mutate func(T) error) func(NodeClass) error {
	return func(nc NodeClass) error {
		t, ok := nc.(T)
		if !ok {
			return fmt.Errorf("node class %q is a %T, not a %T", nc.GetName(), nc, t)
		}
		return mutate(t)
	}
}
