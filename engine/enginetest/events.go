package enginetest

import (
	"reflect"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
)

// Event is a Kubernetes event recorded through state.APIWriter's Event.
type Event struct {
	Time      time.Time
	Kind      string
	Namespace string
	Name      string
	// Type is Normal or Warning.
	Type    string
	Reason  string
	Message string
}

// Event records an event about an object. It never fails; OnCall hears of it as "Event".
func (a *API) Event(object runtime.Object, eventType, reason, message string) {
	defer a.end(OpEvent)
	e := Event{Time: a.clock.Now(), Kind: kindOf(object), Type: eventType, Reason: reason, Message: message}
	if m, err := meta.Accessor(object); err == nil {
		e.Namespace, e.Name = m.GetNamespace(), m.GetName()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.events = append(a.events, e)
}

// Events returns the events recorded so far, oldest first.
func (a *API) Events() []Event {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.events)
}

// kindOf names an object's kind: from its TypeMeta when set, else from its Go type.
func kindOf(object runtime.Object) string {
	if object == nil {
		return ""
	}
	if k := object.GetObjectKind().GroupVersionKind().Kind; k != "" {
		return k
	}
	t := reflect.TypeOf(object)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}
