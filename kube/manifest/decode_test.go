package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

const container = "containers: [{name: app, image: busybox}]"

func TestDecodeWorkloads(t *testing.T) {
	tests := []struct {
		name     string
		manifest string
		want     string // "namespace/name" of the pods, space-separated
	}{
		{"deployment defaults to one replica", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec: {" + container + "}\n", "default/web-0"},
		{"deployment with zero replicas", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 0\n  template:\n    spec: {" + container + "}\n", ""},
		{"replicaset in its namespace", "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs, namespace: shop}\nspec:\n  replicas: 2\n  template:\n    spec: {" + container + "}\n", "shop/rs-0 shop/rs-1"},
		{"statefulset ordinals", "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n  replicas: 3\n  template:\n    spec: {" + container + "}\n", "default/db-0 default/db-1 default/db-2"},
		{"job parallelism", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: batch}\nspec:\n  parallelism: 3\n  template:\n    spec: {" + container + "}\n", "default/batch-0 default/batch-1 default/batch-2"},
		{"job capped by completions", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: batch}\nspec:\n  parallelism: 5\n  completions: 2\n  template:\n    spec: {" + container + "}\n", "default/batch-0 default/batch-1"},
		{"job defaults to one pod", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: once}\nspec:\n  template:\n    spec: {" + container + "}\n", "default/once-0"},
		{"daemonset is not expanded", "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec:\n  template:\n    spec: {" + container + "}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := Decode("w.yaml", []byte(tt.manifest))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range set.Pods {
				got = append(got, p.Namespace+"/"+p.Name)
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("pods = %q, want %q", strings.Join(got, " "), tt.want)
			}
		})
	}
}

func TestDecodePodDetails(t *testing.T) {
	manifest := `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  template:
    metadata:
      labels: {app: web}
      annotations: {karpenter.sh/do-not-disrupt: "true"}
    spec:
      containers: [{name: app, image: nginx, resources: {requests: {cpu: 250m}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: pinned}
spec:
  nodeName: node-a
  ` + container + `
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  template:
    spec: {` + container + `}
`
	set, err := Decode("p.yaml", []byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Pods) != 3 || len(set.DaemonSets) != 1 {
		t.Fatalf("got %d pods and %d DaemonSets, want 3 and 1", len(set.Pods), len(set.DaemonSets))
	}
	web := set.Pods[0]
	if web.Labels["app"] != "web" || web.Annotations["karpenter.sh/do-not-disrupt"] != "true" {
		t.Errorf("labels %v, annotations %v, want the template's", web.Labels, web.Annotations)
	}
	if cpu := web.Spec.Containers[0].Resources.Requests.Cpu().String(); cpu != "250m" {
		t.Errorf("cpu request = %s, want 250m", cpu)
	}
	owners := web.OwnerReferences
	if len(owners) != 1 || owners[0].Kind != "Deployment" || owners[0].Name != "web" || owners[0].Controller == nil || !*owners[0].Controller || owners[0].UID == "" {
		t.Errorf("owner references = %+v, want the Deployment as controller", owners)
	}
	if web.UID == "" || web.UID == set.Pods[1].UID {
		t.Errorf("pod UIDs %q and %q, want distinct", web.UID, set.Pods[1].UID)
	}
	again, _ := Decode("p.yaml", []byte(manifest))
	if again.Pods[0].UID != web.UID {
		t.Errorf("UID changed between loads: %s then %s", web.UID, again.Pods[0].UID)
	}
	web.Labels["app"] = "changed"
	if set.Pods[1].Labels["app"] != "web" {
		t.Error("pods of one workload share their labels map")
	}
	pending := web.Status
	if pending.Phase != corev1.PodPending || len(pending.Conditions) != 1 || pending.Conditions[0].Type != corev1.PodScheduled ||
		pending.Conditions[0].Status != corev1.ConditionFalse || pending.Conditions[0].Reason != corev1.PodReasonUnschedulable {
		t.Errorf("status = %+v, want pending and unschedulable", pending)
	}
	pinned := set.Pods[2]
	if pinned.Namespace != "default" || pinned.Status.Phase != corev1.PodRunning || pinned.Status.Conditions[0].Status != corev1.ConditionTrue {
		t.Errorf("pinned pod %s/%s status %+v, want bound to its node", pinned.Namespace, pinned.Name, pinned.Status)
	}
}

func TestDecodeDocuments(t *testing.T) {
	tests := []struct {
		name     string
		manifest string
		wantErr  string
		wantNote string
		pods     int
	}{
		{name: "empty documents are ignored", manifest: "---\n# only a comment\n---\n\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {" + container + "}\n---\n", pods: 1},
		{name: "other kinds are noted", manifest: "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n", wantNote: `s.yaml: document 1: skipped v1 Service "web" (not used by planning)`},
		{name: "old versions of known kinds are errors", manifest: "apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: old}\n",
			wantErr: `s.yaml: document 1: NodePool "old": apiVersion karpenter.sh/v1beta1 is not supported for NodePool; use karpenter.sh/v1`},
		{name: "missing apiVersion and kind", manifest: "metadata: {name: x}\n", wantErr: "s.yaml: document 1: apiVersion and kind are missing"},
		{name: "not an object", manifest: "- a\n- b\n", wantErr: "s.yaml: document 1: a manifest must be an object with apiVersion and kind"},
		{name: "duplicate keys", manifest: "apiVersion: v1\nkind: Pod\nkind: Pod\n", wantErr: `s.yaml: document 1: yaml: unmarshal errors:` + "\n" + `  line 3: key "kind" already set in map`},
		{name: "JSON", manifest: `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "j"}, "spec": {"containers": [{"name": "a", "image": "b"}]}}`, pods: 1},
		{name: "wrong field type", manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: many}\n",
			wantErr: `s.yaml: document 1: Deployment "d": decoding: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`},
		{name: "too many pods", manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: huge}\nspec: {replicas: 2000000000}\n",
			wantErr: `s.yaml: document 1: Deployment "huge": 2000000000 more pods would exceed the 100000 pods one plan holds`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := Decode("s.yaml", []byte(tt.manifest))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(set.Pods) != tt.pods {
				t.Errorf("got %d pods, want %d", len(set.Pods), tt.pods)
			}
			if tt.wantNote != "" && (len(set.Notes) != 1 || set.Notes[0] != tt.wantNote) {
				t.Errorf("notes = %q, want %q", set.Notes, tt.wantNote)
			}
		})
	}
}

// FuzzLoad feeds arbitrary bytes through the decoding path of Load and checks that it never
// panics and returns either a Set or an error.
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(seedsDir, "*.yaml"))
	invalid, _ := filepath.Glob("../../testdata/manifests/invalid/*.yaml")
	for _, file := range append(seeds, invalid...) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := Decode("fuzz.yaml", data)
		if (set == nil) == (err == nil) {
			t.Fatalf("Decode returned set %v and error %v; want exactly one", set, err)
		}
	})
}
