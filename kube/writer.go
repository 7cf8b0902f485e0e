package kube

import (
	"context"
	"encoding/json"
	"fmt"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/retry"

	"github.com/nodepilot/nodepilot/engine/state"
)

// EventComponent is the source component of the events the Writer records: Karpenter's, so
// that `kubectl get events` and the tools that filter on it read nodepilot's events the same.
const EventComponent = "karpenter"

// Writer changes a cluster for the engine: it implements state.APIWriter over client-go. Updates
// read the object fresh from the API server, apply the caller's mutate and send the change as a
// merge patch conditional on the version read, retrying on conflicts (so mutate may run more
// than once), and skip the write when mutate changed nothing. Errors name the object and wrap the API server's, so apierrors.IsNotFound
// and friends recognise them. Close it when done to stop recording events.
type Writer struct {
	kube        kubernetes.Interface
	clients     *Clients
	broadcaster record.EventBroadcaster
	recorder    record.EventRecorder
}

var _ state.APIWriter = (*Writer)(nil)

// NewWriter returns a Writer for the cluster cfg points at. Events start being recorded at once,
// in the background, until Close.
func NewWriter(cfg *rest.Config) (*Writer, error) {
	clients, err := NewClients(cfg)
	if err != nil {
		return nil, err
	}
	broadcaster := record.NewBroadcaster()
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: clients.Kube.CoreV1().Events("")})
	return &Writer{
		kube:        clients.Kube,
		clients:     clients,
		broadcaster: broadcaster,
		recorder:    broadcaster.NewRecorder(clients.Scheme, corev1.EventSource{Component: EventComponent}),
	}, nil
}

// Close stops recording events: those not yet sent are dropped. The Writer's other methods keep
// working; Event no longer records anything.
func (w *Writer) Close() {
	w.broadcaster.Shutdown()
}

// update reads an object with get, applies mutate, and sends what mutate changed as a JSON merge
// patch with send, conditional on the resourceVersion read; on a conflict it starts again from a
// fresh read. If mutate changes nothing, it returns the object read without writing. A mutate
// error ends it at once and is returned wrapped with what (the object's name).
//
// A patch rather than a whole-object update: fields mutate did not touch go back exactly as
// stored, whatever this client's types make of them (a duration re-encoded as "720h0m0s" would
// break the NodeClaim spec's immutability rule; a field of a newer CRD would be erased).
func update[T Object](ctx context.Context, what string, get func(context.Context) (T, error), mutate func(T) error,
	send func(ctx context.Context, patch []byte) (T, error)) (T, error) {
	var out T
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		obj, err := get(ctx)
		if err != nil {
			return err
		}
		before, err := json.Marshal(obj)
		if err != nil {
			return fmt.Errorf("%s: encode: %w", what, err)
		}
		if err := mutate(obj); err != nil {
			return mutateError{err}
		}
		after, err := json.Marshal(obj)
		if err != nil {
			return fmt.Errorf("%s: encode: %w", what, err)
		}
		patch, err := mergePatch(before, after, obj.GetResourceVersion())
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if patch == nil {
			out = obj
			return nil
		}
		out, err = send(ctx, patch)
		return err
	})
	if me, ok := err.(mutateError); ok {
		return out, fmt.Errorf("%s: %w", what, me.err)
	}
	return out, err
}

// mergePatch returns the JSON merge patch from before to after, made conditional on
// resourceVersion (the API server answers 409 Conflict if the object changed since), or nil if
// nothing changed.
func mergePatch(before, after []byte, resourceVersion string) ([]byte, error) {
	diff, err := jsonpatch.CreateMergePatch(before, after)
	if err != nil {
		return nil, fmt.Errorf("merge patch: %w", err)
	}
	patch := map[string]any{}
	if err := json.Unmarshal(diff, &patch); err != nil {
		return nil, fmt.Errorf("merge patch: %w", err)
	}
	if len(patch) == 0 {
		return nil, nil
	}
	metadata, _ := patch["metadata"].(map[string]any)
	if metadata == nil {
		metadata = map[string]any{}
		patch["metadata"] = metadata
	}
	metadata["resourceVersion"] = resourceVersion
	return json.Marshal(patch)
}

// mutateError carries a mutate function's error through RetryOnConflict, which must not mistake
// it for a conflict of its own.
type mutateError struct{ err error }

func (e mutateError) Error() string { return fmt.Sprintf("mutate: %v", e.err) }
