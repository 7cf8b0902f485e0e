package demo

import (
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/nodepilot/nodepilot/kube"
)

// TestApplyWorkloads: every kind the demo's files hold is created, in the default namespace
// unless it names one; applying the same file again changes nothing and fails nothing; a document
// that does not decode is refused with its file's name, and a ScaledObject is read, not created.
func TestApplyWorkloads(t *testing.T) {
	const file = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: agent}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}
---
apiVersion: v1
kind: Pod
metadata: {name: one-off, namespace: jobs}
spec: {containers: [{name: run, image: busybox}]}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: data}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /data}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec: {accessModes: [ReadWriteOnce], volumeName: data, resources: {requests: {storage: 1Gi}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, maxReplicas: 3}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ignored}
`
	kc := fake.NewClientset()
	c := &kube.Clients{Kube: kc}
	for round := range 2 {
		var out applied
		if err := applyWorkloads(t.Context(), c, "app.yaml", []byte(file), &out); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if len(out.deployments) != 1 || out.deployments[0] != "default/web" {
			t.Errorf("round %d: deployments %v, want [default/web]", round, out.deployments)
		}
	}
	ctx, get := t.Context(), metav1.GetOptions{}
	for what, err := range map[string]error{
		"default/web Deployment":              second(kc.AppsV1().Deployments("default").Get(ctx, "web", get)),
		"kube-system/agent DaemonSet":         second(kc.AppsV1().DaemonSets("kube-system").Get(ctx, "agent", get)),
		"default/web PodDisruptionBudget":     second(kc.PolicyV1().PodDisruptionBudgets("default").Get(ctx, "web", get)),
		"jobs/one-off Pod":                    second(kc.CoreV1().Pods("jobs").Get(ctx, "one-off", get)),
		"data PersistentVolume":               second(kc.CoreV1().PersistentVolumes().Get(ctx, "data", get)),
		"default/data PersistentVolumeClaim":  second(kc.CoreV1().PersistentVolumeClaims("default").Get(ctx, "data", get)),
		"default/web HorizontalPodAutoscaler": second(kc.AutoscalingV2().HorizontalPodAutoscalers("default").Get(ctx, "web", get)),
	} {
		if err != nil {
			t.Errorf("%s not created: %v", what, err)
		}
	}
	if cms, err := kc.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{}); err != nil || len(cms.Items) != 0 {
		t.Errorf("config maps %v (%v), want none: the demo applies only the kinds it drives", cms, err)
	}

	for _, tc := range []struct{ name, doc, want string }{
		{"an unknown field", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containerz: []}\n", `app.yaml: error unmarshaling JSON: while decoding JSON: json: unknown field "containerz"`},
		{"a bad ScaledObject", "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: s}\nspec: {scaleTargetRef: {name: web}, triggers: [{type: cron, metadata: {start: nonsense}}]}\n", "app.yaml: ScaledObject default/s: "},
		{"a refused create", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: run, image: busybox}]}\n", "app.yaml: creating pod: nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kc := fake.NewClientset()
			kc.PrependReactor("create", "pods", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, errors.New("nope") })
			var out applied
			err := applyWorkloads(t.Context(), &kube.Clients{Kube: kc}, "app.yaml", []byte(tc.doc), &out)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v, want one starting %q", err, tc.want)
			}
		})
	}
}

func second[T any](_ T, err error) error { return err }
