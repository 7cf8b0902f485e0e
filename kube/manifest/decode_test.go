package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
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
			wantErr: `s.yaml: document 1: Deployment "d": spec.replicas: Invalid value: "many": must be an integer`},
		{name: "too many pods", manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: huge}\nspec: {replicas: 2000000000, template: {spec: {" + container + "}}}\n",
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

// TestDecodeRefusals: what the API server refuses, plan refuses in its words, naming the file,
// document, object and field path, and never a Go type.
func TestDecodeRefusals(t *testing.T) {
	pod := func(spec string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: " + spec + "\n"
	}
	resources := func(r string) string { return pod("{containers: [{name: a, image: b, resources: " + r + "}]}") }
	nodePool := func(spec string) string {
		return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: np}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n" + spec
	}
	for _, tc := range []struct {
		name, manifest, want string
	}{
		{"a pod without containers", pod("{}"), `Pod "p": spec.containers: Required value`},
		{"a negative request", resources("{requests: {cpu: '-1'}}"),
			`Pod "p": spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0`},
		{"a negative limit", resources("{limits: {memory: -1Gi}}"),
			`Pod "p": spec.containers[0].resources.limits[memory]: Invalid value: "-1Gi": must be greater than or equal to 0`},
		{"a request above its limit", resources("{requests: {cpu: '2'}, limits: {cpu: '1'}}"),
			`Pod "p": spec.containers[0].resources.requests[cpu]: Invalid value: "2": must be less than or equal to cpu limit of 1`},
		{"an init container's request above its limit", pod("{initContainers: [{name: i, image: b, resources: {requests: {memory: 2Gi}, limits: {memory: 1Gi}}}], " + container + "}"),
			`Pod "p": spec.initContainers[0].resources.requests[memory]: Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi`},
		{"a Deployment's template", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {template: {spec: {containers: [{name: a, resources: {requests: {cpu: '-500m'}}}]}}}\n",
			`Deployment "d": spec.template.spec.containers[0].resources.requests[cpu]: Invalid value: "-500m": must be greater than or equal to 0`},
		{"a DaemonSet without containers", "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: ds}\nspec: {template: {spec: {}}}\n",
			`DaemonSet "ds": spec.template.spec.containers: Required value`},
		{"a request that is not a quantity", resources("{requests: {cpu: lots}}"),
			`Pod "p": spec.containers[0].resources.requests[cpu]: Invalid value: "lots": must be a quantity, such as 500m, 2, 1.5 or 4Gi`},
		{"a request whose exponent would take minutes to parse", resources("{requests: {cpu: '1e-99999999'}}"),
			`Pod "p": spec.containers[0].resources.requests[cpu]: Invalid value: "1e-99999999": the exponent of 1e-99999999 is beyond ±1000: write the quantity in a form such as 500m, 2, 1.5 or 4Gi`},
		{"a limit whose exponent would take minutes to compare", nodePool("  limits: {cpu: '1e99999999'}\n"),
			`NodePool "np": spec.limits.cpu: Invalid value: "1e99999999": the exponent of 1e99999999 is beyond ±1000: write the quantity in a form such as 500m, 2, 1.5 or 4Gi`},
		{"a weight that is not a number", nodePool("  weight: abc\n"), `NodePool "np": spec.weight: Invalid value: "abc": must be an integer`},
		{"a limit that is not a quantity", nodePool("  limits: {cpu: lots}\n"),
			`NodePool "np": spec.limits.cpu: Invalid value: "lots": must be a quantity, such as 500m, 2, 1.5 or 4Gi`},
		{"a duration that is a number", nodePool("  disruption: {consolidateAfter: 30}\n"),
			`NodePool "np": spec.disruption.consolidateAfter: Invalid value: "30": a duration must be a string such as "720h" or "Never", got 30`},
		{"a string for a list", strings.Replace(nodePool(""), "requirements: []", "requirements: [{key: a, operator: In, values: x}]", 1),
			`NodePool "np": spec.template.spec.requirements[0].values: Invalid value: "x": must be a list`},
		{"a kind that is not a string", "apiVersion: v1\nkind: [Pod]\n", `kind: Invalid value: ["Pod"]: must be a string`},
		{"a binding mode StorageClass does not have", "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: gp3}\nprovisioner: ebs.csi.aws.com\nvolumeBindingMode: Later\n",
			`StorageClass "gp3": volumeBindingMode: "Later" is no binding mode: use Immediate or WaitForFirstConsumer`},
		{"an allowed topology without values", "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: gp3}\nprovisioner: ebs.csi.aws.com\nallowedTopologies: [{matchLabelExpressions: [{key: topology.kubernetes.io/zone}]}]\n",
			`StorageClass "gp3": allowedTopologies[0].matchLabelExpressions[0].values: at least one value is required`},
		{"a claim without a name", "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {}\nspec: {accessModes: [ReadWriteOnce]}\n",
			`PersistentVolumeClaim "": metadata.name: a name is required`},
		{"a list for a string", "apiVersion: v1\nkind: Pod\nmetadata: {name: [a]}\nspec: {" + container + "}\n",
			`Pod "": metadata.name: Invalid value: "[\"a\"]": must be a string`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("s.yaml", []byte(tc.manifest))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Decode = %v, want it loaded", err)
				}
				return
			}
			want := "s.yaml: document 1: " + tc.want
			if err == nil || err.Error() != want {
				t.Fatalf("error = %v\nwant    %s", err, want)
			}
			for _, goism := range []string{"Go struct", "Go value", "int32", "v1.", "resource.Quantity"} {
				if strings.Contains(err.Error(), goism) {
					t.Errorf("the message names Go: %q", goism)
				}
			}
		})
	}
}

// TestDecodeLists: a List (kubectl get -o yaml) and a typed list are read item by item, and
// each item's problems and notes name it.
func TestDecodeLists(t *testing.T) {
	item := func(name string) string {
		return "{apiVersion: v1, kind: Pod, metadata: {name: " + name + "}, spec: {" + container + "}}"
	}
	for _, tc := range []struct {
		name, manifest string
		pods           int
		note, err      string
	}{
		{name: "kubectl's List", manifest: "apiVersion: v1\nkind: List\nitems:\n- " + item("a") + "\n- " + item("b") + "\n- {apiVersion: v1, kind: Service, metadata: {name: s}}\n",
			pods: 2, note: `s.yaml: document 1: items[2]: skipped v1 Service "s" (not used by planning)`},
		{name: "a typed list's items take its kind", manifest: "apiVersion: v1\nkind: PodList\nitems:\n- {metadata: {name: a}, spec: {" + container + "}}\n", pods: 1},
		{name: "an empty List", manifest: "apiVersion: v1\nkind: List\nitems: []\n"},
		{name: "an item's problem names it", manifest: "apiVersion: v1\nkind: List\nitems:\n- " + item("a") + "\n- {apiVersion: v1, kind: Pod, metadata: {name: b}, spec: {}}\n",
			err: `s.yaml: document 1: items[1]: Pod "b": spec.containers: Required value`},
		{name: "an item without a kind", manifest: "apiVersion: v1\nkind: List\nitems:\n- {metadata: {name: a}}\n",
			err: `s.yaml: document 1: items[0]: apiVersion and kind are missing`},
		{name: "a list in a list", manifest: "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: List, items: []}\n",
			err: `s.yaml: document 1: items[0]: List "": a List inside a List is not expanded; put its items in the outer list`},
		{name: "items not a list", manifest: "apiVersion: v1\nkind: List\nitems: {a: b}\n", err: `s.yaml: document 1: List "": items: must be a list of objects`},
		{name: "duplicates across items", manifest: "apiVersion: v1\nkind: List\nitems:\n- " + item("a") + "\n- " + item("a") + "\n",
			err: `s.yaml: document 1: Pod "default/a": duplicate name: Pod "a" is already defined in s.yaml document 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, err := Decode("s.yaml", []byte(tc.manifest))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error = %v\nwant    %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(set.Pods) != tc.pods {
				t.Errorf("%d pods, want %d", len(set.Pods), tc.pods)
			}
			if tc.note != "" && (len(set.Notes) != 1 || set.Notes[0] != tc.note) {
				t.Errorf("notes %q, want %q", set.Notes, tc.note)
			}
		})
	}
}

// TestDecodeKarpenterKinds: a kind Karpenter's groups do not have is an error, with the kind it
// most likely meant; Karpenter's other kinds and other groups' unknown kinds are notes.
func TestDecodeKarpenterKinds(t *testing.T) {
	for _, tc := range []struct {
		apiVersion, kind string
		err              string // "" for a note
	}{
		{"karpenter.sh/v1", "NodePol", `NodePol "x": kind NodePol is not a kind of karpenter.sh: did you mean NodePool?`},
		{"karpenter.sh/v1", "Nodepool", `Nodepool "x": kind Nodepool is not a kind of karpenter.sh: did you mean NodePool?`},
		{"karpenter.k8s.aws/v1", "EC2NodeClas", `EC2NodeClas "x": kind EC2NodeClas is not a kind of karpenter.k8s.aws: did you mean EC2NodeClass?`},
		{"karpenter.sh/v1", "Widget", `Widget "x": kind Widget is not a kind of karpenter.sh (its kinds: NodeClaim, NodeOverlay, NodePool)`},
		{"karpenter.sh/v1alpha1", "NodeOverlay", ""},
		{"example.com/v1", "NodePol", ""},
	} {
		t.Run(tc.apiVersion+" "+tc.kind, func(t *testing.T) {
			set, err := Decode("s.yaml", []byte("apiVersion: "+tc.apiVersion+"\nkind: "+tc.kind+"\nmetadata: {name: x}\n"))
			if tc.err == "" {
				if err != nil || len(set.Notes) != 1 {
					t.Fatalf("Decode = %v, want one note", err)
				}
				return
			}
			if want := "s.yaml: document 1: " + tc.err; err == nil || err.Error() != want {
				t.Fatalf("error = %v\nwant    %s", err, want)
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

// TestDecodeVolumes: PersistentVolumes, their claims and StorageClasses are read; a StatefulSet's
// pods mount the claims its controller would make from its volumeClaimTemplates, and Claims lists
// them beside the manifests' own, with the default class where they name none.
func TestDecodeVolumes(t *testing.T) {
	const manifests = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: gp3
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
allowedTopologies: [{matchLabelExpressions: [{key: topology.ebs.csi.aws.com/zone, values: [us-east-1c]}]}]
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: io2}
provisioner: ebs.csi.aws.com
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: st1
  annotations: {storageclass.beta.kubernetes.io/is-default-class: "true"}
provisioner: ebs.csi.aws.com
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-shared}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteMany], nfs: {server: nfs, path: /}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: shared}
spec: {accessModes: [ReadWriteMany], volumeName: pv-shared, storageClassName: ""}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: logs-db-1}
spec: {accessModes: [ReadWriteOnce], storageClassName: io2}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  template:
    spec:
      containers: [{name: app, image: busybox}]
      volumes: [{name: data, emptyDir: {}}, {name: shared, persistentVolumeClaim: {claimName: shared}}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce]}
  - metadata: {name: logs}
    spec: {accessModes: [ReadWriteOnce], storageClassName: io2}
`
	set, err := Decode("db.yaml", []byte(manifests))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.StorageClasses) != 3 || len(set.PVs) != 1 || len(set.PVCs) != 2 {
		t.Fatalf("%d classes, %d volumes, %d claims; want 3, 1 and 2", len(set.StorageClasses), len(set.PVs), len(set.PVCs))
	}
	claims := func(p *corev1.Pod) string {
		var out []string
		for _, v := range p.Spec.Volumes {
			if v.PersistentVolumeClaim != nil {
				out = append(out, v.Name+"="+v.PersistentVolumeClaim.ClaimName)
			}
		}
		return strings.Join(out, " ")
	}
	// The template's volume "data" replaces the pod template's own of that name.
	for i, want := range []string{"data=data-db-0 shared=shared logs=logs-db-0", "data=data-db-1 shared=shared logs=logs-db-1"} {
		if got := claims(set.Pods[i]); got != want {
			t.Errorf("pod %s mounts %q, want %q", set.Pods[i].Name, got, want)
		}
	}
	var got []string
	for _, pvc := range set.Claims() {
		got = append(got, pvc.Namespace+"/"+pvc.Name+":"+ptr.Deref(pvc.Spec.StorageClassName, "<none>"))
	}
	// Two classes are marked default (st1 by the beta annotation): the claims get gp3, first by name.
	want := "default/shared: default/logs-db-1:io2 default/data-db-0:gp3 default/logs-db-0:io2 default/data-db-1:gp3"
	if strings.Join(got, " ") != want {
		t.Errorf("claims %q\nwant   %q", strings.Join(got, " "), want)
	}
}
