// Package enginetest is an in-memory cluster for the engine's tests: an API server that
// implements state.APIWriter and feeds a state.Cluster as informers would, a cloud that implements
// cloudprovider.CloudProvider and cloudprovider.Interruptions, kubelets that register nodes for
// launched instances and run their pods, a kube-scheduler that binds pending pods, Deployment
// and DaemonSet controllers, and an Env that ties them to a fake clock. Time moves only when a
// test steps the clock, so long simulated runs take milliseconds; the engine's goroutines may
// call the API and the cloud concurrently. Everything is deterministic.
//
// A typical test runs the engine's loops synchronously, in step with the world:
//
//	e := enginetest.NewEnv(t)
//	a := autoscaler.New(e.Cluster, e.API, e.Cloud, e.Cloud, journal.New(1000), e.Clock, autoscaler.DefaultOptions())
//	e.AddReconciler(func(ctx context.Context) {
//		a.Provisioner.Reconcile(ctx)
//		a.Lifecycle.Reconcile(ctx)
//		a.Termination.Reconcile(ctx)
//		e.Cloud.Poll(ctx, a.Interruption.Handle)
//	})
//	e.NodePool("default", enginetest.Spot())
//	e.Deployment("web", 5, enginetest.Resources("1", "1Gi"))
//	e.PDB("web", map[string]string{"app": "web"}, "2", "")
//	e.Advance(2*time.Minute, time.Second)
//	if err := e.CheckConverged(); err != nil {
//		t.Fatal(err)
//	}
//
// Faults: e.Cloud.InjectInsufficientCapacity, e.Cloud.Interrupt, e.Cloud.SetDrifted,
// e.API.FailNext and e.Cloud.FailNext, e.API.ForceConflicts; crashes: OnCall on the API or the
// Cloud cancels the engine's context right after an operation, and the function AddReconciler
// returns removes the crashed engine before a fresh one is added.
//
// The world is deliberately smaller than Kubernetes; the doc comment of each piece says what it
// simplifies. Only tests import this package.
package enginetest
