package localcluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// registerInterval is how often RegisterNodes compares the running instances with the Nodes.
const registerInterval = 250 * time.Millisecond

// RegisterNodes plays the kubelets of src's instances. Every 250 ms it creates the Node of each
// instance that has been running for at least joinDelay and has none (named by NodeName, labelled,
// tainted karpenter.sh/unregistered:NoExecute, with the instance's capacity; kwok keeps it Ready
// and runs its pods), and deletes the Nodes of instances that no longer run (those labelled
// InstanceIDLabel only). A Node deleted while its instance still runs comes back, as a kubelet
// re-registers. Errors from src or the API server are logged and retried on the next pass, never
// returned. RegisterNodes blocks until ctx is done, then returns nil: run it in a goroutine that
// you stop by cancelling ctx.
func (c *Cluster) RegisterNodes(ctx context.Context, src Instances, joinDelay time.Duration) error {
	client, err := corev1client.NewForConfig(c.RESTConfig())
	if err != nil {
		return fmt.Errorf("localcluster: node registration client: %w", err)
	}
	r := registrar{nodes: client.Nodes(), src: src, joinDelay: joinDelay, log: c.log}
	ticker := time.NewTicker(registerInterval)
	defer ticker.Stop()
	for {
		if err := r.sync(ctx, time.Now()); err != nil && ctx.Err() == nil {
			c.log.Warn("node registration failed; retrying", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// registrar makes the Nodes match the running instances.
type registrar struct {
	nodes     corev1client.NodeInterface
	src       Instances
	joinDelay time.Duration
	log       *slog.Logger
}

// sync does one pass at time now: it creates the missing Nodes of instances running for at least
// joinDelay and deletes the Nodes of instances gone. It goes on after an error and returns them all.
func (r registrar) sync(ctx context.Context, now time.Time) error {
	running, err := r.src.Running(ctx)
	if err != nil {
		return fmt.Errorf("list running instances: %w", err)
	}
	list, err := r.nodes.List(ctx, metav1.ListOptions{LabelSelector: InstanceIDLabel})
	if err != nil {
		return fmt.Errorf("list nodes labelled %s: %w", InstanceIDLabel, err)
	}
	registered := map[string]bool{}
	for _, node := range list.Items {
		registered[node.Labels[InstanceIDLabel]] = true
	}

	var errs []error
	isRunning := map[string]bool{}
	for _, inst := range running {
		isRunning[inst.ID] = true
		if registered[inst.ID] || now.Sub(inst.LaunchedAt) < r.joinDelay {
			continue
		}
		errs = append(errs, r.register(ctx, inst))
	}
	for _, node := range list.Items {
		if isRunning[node.Labels[InstanceIDLabel]] || node.DeletionTimestamp != nil {
			continue
		}
		errs = append(errs, r.deregister(ctx, node.Name, node.Labels[InstanceIDLabel]))
	}
	return errors.Join(errs...)
}

// register creates inst's Node. A Node of that name already there counts as registered.
func (r registrar) register(ctx context.Context, inst Instance) error {
	if inst.ID == "" {
		return errors.New("instance with no ID: no node")
	}
	node := nodeFor(inst)
	_, err := r.nodes.Create(ctx, node, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("instance %s: create node %s: %w", inst.ID, node.Name, err)
	}
	r.log.Info("node registered", "instance", inst.ID, "node", node.Name, "type", inst.InstanceType, "zone", inst.Zone)
	return nil
}

// deregister deletes the Node called name of the instance id, which no longer runs.
func (r registrar) deregister(ctx context.Context, name, id string) error {
	err := r.nodes.Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("instance %s: delete node %s: %w", id, name, err)
	}
	r.log.Info("node deleted", "instance", id, "node", name)
	return nil
}
