package charts_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/v2/lint/support"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/nodepilot/nodepilot/charts"
	"github.com/nodepilot/nodepilot/kube"
)

// base is what every render here starts from: the one value the chart requires.
const base = "settings: {clusterName: prod}"

// rendered is a render's objects, with the ones most checks read decoded.
type rendered struct {
	objs       []*unstructured.Unstructured
	deployment appsv1.Deployment
	container  corev1.Container
}

// values reads doc as `helm install -f` reads a values file, over base unless doc is exactly as given.
func values(t *testing.T, doc string, overBase bool) map[string]any {
	t.Helper()
	v, err := common.ReadValues([]byte(doc))
	if err != nil {
		t.Fatalf("values %q: %v", doc, err)
	}
	if !overBase {
		return v
	}
	b, err := common.ReadValues([]byte(base))
	if err != nil {
		t.Fatal(err)
	}
	return util.MergeTables(v, b)
}

// render renders the chart as release nodepilot in namespace nodepilot with doc over base.
func render(t *testing.T, doc string) rendered {
	t.Helper()
	return renderAs(t, "nodepilot", "nodepilot", doc)
}

func renderAs(t *testing.T, releaseName, namespace, doc string) rendered {
	t.Helper()
	objs, err := charts.Render(releaseName, namespace, values(t, doc, true))
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	r := rendered{objs: objs}
	d := only(t, objs, "Deployment")
	convert(t, d, &r.deployment)
	if n := len(r.deployment.Spec.Template.Spec.Containers); n != 1 {
		t.Fatalf("%d containers, want 1", n)
	}
	r.container = r.deployment.Spec.Template.Spec.Containers[0]
	return r
}

// only returns the one object of kind, failing unless there is exactly one.
func only(t *testing.T, objs []*unstructured.Unstructured, kind string) *unstructured.Unstructured {
	t.Helper()
	var found []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d objects of kind %s, want 1", len(found), kind)
	}
	return found[0]
}

func convert(t *testing.T, u *unstructured.Unstructured, into any) {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, into, true); err != nil {
		t.Fatalf("%s %s: %v", u.GetKind(), u.GetName(), err)
	}
}

func kinds(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetKind())
	}
	return out
}

// TestCRDsAreKubeAPIsCRDs: the chart ships exactly the CRDs `make generate` writes to
// kube/apis/crds, byte for byte, so that the two can never drift.
func TestCRDsAreKubeAPIsCRDs(t *testing.T) {
	c, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	shipped := map[string][]byte{}
	for _, crd := range c.CRDObjects() {
		shipped[filepath.Base(crd.Name)] = crd.File.Data
	}
	generated, err := filepath.Glob("../kube/apis/crds/*.yaml")
	if err != nil || len(generated) == 0 {
		t.Fatalf("no CRDs under kube/apis/crds: %v", err)
	}
	for _, path := range generated {
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		if got, ok := shipped[name]; !ok {
			t.Errorf("the chart lacks crds/%s: run make generate", name)
		} else if !bytes.Equal(got, want) {
			t.Errorf("crds/%s differs from kube/apis/crds/%s: run make generate", name, name)
		}
		delete(shipped, name)
	}
	for name := range shipped {
		t.Errorf("crds/%s is not in kube/apis/crds", name)
	}
}

// TestLint: Helm's own linter, strict (warnings fail), finds nothing in the chart given a cluster
// name, and refuses it without one.
func TestLint(t *testing.T) {
	for _, tc := range []struct {
		name, values string
		wantErr      string // "" for a clean lint
	}{
		{name: "cluster name only", values: base},
		{name: "every option", values: everyOption},
		{name: "no cluster name", values: "{}", wantErr: "/settings/clusterName"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lint := action.NewLint()
			lint.Strict = true
			lint.Namespace = "nodepilot"
			result := lint.Run([]string{charts.Name}, values(t, tc.values, false))
			if result.TotalChartsLinted != 1 {
				t.Fatalf("linted %d charts, want 1 (errors: %v)", result.TotalChartsLinted, result.Errors)
			}
			var problems []string
			for _, m := range result.Messages {
				if m.Severity >= support.WarningSev {
					problems = append(problems, m.Error())
				}
			}
			switch {
			case tc.wantErr == "" && (len(problems) > 0 || len(result.Errors) > 0):
				t.Errorf("lint found %q (errors %v)", problems, result.Errors)
			case tc.wantErr != "" && !strings.Contains(strings.Join(problems, "\n"), tc.wantErr):
				t.Errorf("lint found %q, want an error naming %s", problems, tc.wantErr)
			}
		})
	}
}

// everyOption sets every value the chart maps to a controller flag.
const everyOption = `
settings:
  clusterName: prod
  interruptionQueue: prod-interruptions
  region: eu-west-1
  batchIdleDuration: 2s
  batchMaxDuration: 30s
  preferencePolicy: Ignore
  featureGates: {spotToSpotConsolidation: true}
logLevel: debug
dryRun: true
extraArgs: ["--packing=Cost", "--enable-profiling"]
metrics: {port: 9090}
healthProbe: {port: 9091}
`

// TestRenderDefaults: what `helm install nodepilot charts/nodepilot -n nodepilot --set
// settings.clusterName=prod` creates, IRSA annotation included.
func TestRenderDefaults(t *testing.T) {
	const roleARN = "arn:aws:iam::111122223333:role/nodepilot"
	r := render(t, `serviceAccount: {annotations: {eks.amazonaws.com/role-arn: "`+roleARN+`"}}`)

	wantKinds := []string{"CustomResourceDefinition", "CustomResourceDefinition", "CustomResourceDefinition",
		"PodDisruptionBudget", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Service", "Deployment"}
	if got := kinds(r.objs); !slices.Equal(got, wantKinds) {
		t.Errorf("objects in order %v, want %v (no ServiceMonitor by default)", got, wantKinds)
	}
	for _, o := range r.objs {
		namespaced := !slices.Contains([]string{"CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding"}, o.GetKind())
		if namespaced && o.GetNamespace() != "nodepilot" {
			t.Errorf("%s %s in namespace %q, want the release's", o.GetKind(), o.GetName(), o.GetNamespace())
		}
	}

	d, c := r.deployment, r.container
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Errorf("replicas %v, want 2", d.Spec.Replicas)
	}
	wantArgs := []string{"controller", "--cluster-name=prod", "--leader-elect=true", "--metrics-addr=:8080", "--health-addr=:8081", "--log-level=info"}
	if !slices.Equal(c.Args, wantArgs) {
		t.Errorf("args %q, want %q", c.Args, wantArgs)
	}
	if c.Image != "ghcr.io/nodepilot/nodepilot:0.1.0" {
		t.Errorf("image %q, want the appVersion's", c.Image)
	}
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["http-metrics"] != 8080 || ports["http"] != 8081 {
		t.Errorf("container ports %v, want http-metrics 8080 and http 8081", ports)
	}
	for _, p := range []struct {
		name  string
		probe *corev1.Probe
		path  string
	}{{"liveness", c.LivenessProbe, "/healthz"}, {"readiness", c.ReadinessProbe, "/readyz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil || p.probe.HTTPGet.Path != p.path || p.probe.HTTPGet.Port.String() != "http" {
			t.Errorf("%s probe %+v, want GET %s on port http", p.name, p.probe, p.path)
		}
	}
	wantEnv := []corev1.EnvVar{{Name: "POD_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}}}
	if !equality.Semantic.DeepEqual(c.Env, wantEnv) {
		t.Errorf("env %+v, want POD_NAMESPACE from metadata.namespace", c.Env)
	}
	checkSecurityContext(t, d.Spec.Template.Spec, c)

	pod := d.Spec.Template.Spec
	sa := only(t, r.objs, "ServiceAccount")
	if pod.ServiceAccountName != sa.GetName() || sa.GetAnnotations()["eks.amazonaws.com/role-arn"] != roleARN {
		t.Errorf("pod runs as %q; ServiceAccount %q annotated %v, want the role ARN", pod.ServiceAccountName, sa.GetName(), sa.GetAnnotations())
	}
	for _, kind := range []string{"ClusterRoleBinding", "RoleBinding"} {
		var b rbacv1.RoleBinding // a ClusterRoleBinding has the same fields
		convert(t, only(t, r.objs, kind), &b)
		if len(b.Subjects) != 1 || b.Subjects[0].Name != sa.GetName() || b.Subjects[0].Namespace != "nodepilot" {
			t.Errorf("%s subjects %+v, want the ServiceAccount", kind, b.Subjects)
		}
	}
	if pod.PriorityClassName != "system-cluster-critical" {
		t.Errorf("priorityClassName %q, want system-cluster-critical", pod.PriorityClassName)
	}
	podLabels := d.Spec.Template.Labels
	if len(pod.TopologySpreadConstraints) != 1 {
		t.Fatalf("topologySpreadConstraints %+v, want one", pod.TopologySpreadConstraints)
	}
	spread := pod.TopologySpreadConstraints[0]
	if spread.TopologyKey != corev1.LabelTopologyZone || spread.MaxSkew != 1 || spread.WhenUnsatisfiable != corev1.DoNotSchedule ||
		spread.LabelSelector == nil || !equality.Semantic.DeepEqual(spread.LabelSelector.MatchLabels, podLabels) {
		t.Errorf("topology spread %+v, want zones, skew 1, DoNotSchedule, selecting the pods %v", spread, podLabels)
	}
	anti := pod.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if len(anti) != 1 || anti[0].TopologyKey != corev1.LabelHostname || !equality.Semantic.DeepEqual(anti[0].LabelSelector.MatchLabels, podLabels) {
		t.Errorf("pod anti-affinity %+v, want one replica a node", anti)
	}

	var pdb policyv1.PodDisruptionBudget
	convert(t, only(t, r.objs, "PodDisruptionBudget"), &pdb)
	if pdb.Name != "nodepilot" || pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 1 ||
		!equality.Semantic.DeepEqual(pdb.Spec.Selector.MatchLabels, podLabels) {
		t.Errorf("PodDisruptionBudget %s %+v, want maxUnavailable 1 over the pods %v", pdb.Name, pdb.Spec, podLabels)
	}
	var svc corev1.Service
	convert(t, only(t, r.objs, "Service"), &svc)
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 8080 || svc.Spec.Ports[0].TargetPort.String() != "http-metrics" ||
		!equality.Semantic.DeepEqual(svc.Spec.Selector, podLabels) {
		t.Errorf("Service %+v, want port 8080 to http-metrics of the pods", svc.Spec)
	}
	// The Role renews the controller's own Lease and no other.
	var role rbacv1.Role
	convert(t, only(t, r.objs, "Role"), &role)
	for _, rule := range role.Rules {
		if slices.Contains(rule.Verbs, "update") && !slices.Equal(rule.ResourceNames, []string{kube.LeaseName}) {
			t.Errorf("Role rule %+v updates Leases other than %s", rule, kube.LeaseName)
		}
	}
}

// checkSecurityContext: non-root (65532), read-only root, no privilege escalation, no
// capabilities, the runtime's default seccomp profile.
func checkSecurityContext(t *testing.T, pod corev1.PodSpec, c corev1.Container) {
	t.Helper()
	p, s := pod.SecurityContext, c.SecurityContext
	if p == nil || s == nil {
		t.Fatalf("pod securityContext %+v, container's %+v", p, s)
	}
	is := func(b *bool, want bool) bool { return b != nil && *b == want }
	if !is(p.RunAsNonRoot, true) || p.RunAsUser == nil || *p.RunAsUser != 65532 || p.SeccompProfile == nil || p.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod securityContext %+v", p)
	}
	if !is(s.RunAsNonRoot, true) || s.RunAsUser == nil || *s.RunAsUser != 65532 || !is(s.ReadOnlyRootFilesystem, true) ||
		!is(s.AllowPrivilegeEscalation, false) || !is(s.Privileged, false) ||
		s.Capabilities == nil || !slices.Equal(s.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(s.Capabilities.Add) != 0 ||
		s.SeccompProfile == nil || s.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("container securityContext %+v", s)
	}
}

// TestRenderValues: each value reaches the object or flag it names.
func TestRenderValues(t *testing.T) {
	for _, tc := range []struct {
		name, values string
		check        func(t *testing.T, r rendered)
	}{
		{
			name:   "serviceMonitor.enabled renders one, for the metrics Service",
			values: `serviceMonitor: {enabled: true, additionalLabels: {release: prometheus}, endpointConfig: {interval: 15s}}`,
			check: func(t *testing.T, r rendered) {
				sm := only(t, r.objs, "ServiceMonitor")
				if sm.GetAPIVersion() != "monitoring.coreos.com/v1" || sm.GetLabels()["release"] != "prometheus" {
					t.Errorf("ServiceMonitor %s labels %v", sm.GetAPIVersion(), sm.GetLabels())
				}
				endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
				want := []any{map[string]any{"port": "http-metrics", "path": "/metrics", "interval": "15s"}}
				if !equality.Semantic.DeepEqual(endpoints, want) {
					t.Errorf("endpoints %v, want %v", endpoints, want)
				}
				selector, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
				if svc := only(t, r.objs, "Service"); len(selector) == 0 || !subset(selector, svc.GetLabels()) {
					t.Errorf("ServiceMonitor selects %v, the Service is labelled %v", selector, svc.GetLabels())
				}
			},
		},
		{
			name:   "priorityClassName",
			values: `priorityClassName: nodepilot-critical`,
			check: func(t *testing.T, r rendered) {
				if got := r.deployment.Spec.Template.Spec.PriorityClassName; got != "nodepilot-critical" {
					t.Errorf("priorityClassName %q", got)
				}
			},
		},
		{
			name:   "priorityClassName empty sets none",
			values: `priorityClassName: ""`,
			check: func(t *testing.T, r rendered) {
				if got := r.deployment.Spec.Template.Spec.PriorityClassName; got != "" {
					t.Errorf("priorityClassName %q", got)
				}
			},
		},
		{
			name:   "resources",
			values: `resources: {requests: {cpu: 500m, memory: 512Mi}, limits: {memory: 1Gi}}`,
			check: func(t *testing.T, r rendered) {
				want := corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("512Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")},
				}
				if !equality.Semantic.DeepEqual(r.container.Resources, want) {
					t.Errorf("resources %+v", r.container.Resources)
				}
			},
		},
		{
			name:   "topologySpreadConstraints get the pods' selector",
			values: `topologySpreadConstraints: [{maxSkew: 2, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway}]`,
			check: func(t *testing.T, r rendered) {
				got := r.deployment.Spec.Template.Spec.TopologySpreadConstraints
				if len(got) != 1 || got[0].MaxSkew != 2 || got[0].TopologyKey != corev1.LabelHostname || got[0].WhenUnsatisfiable != corev1.ScheduleAnyway ||
					got[0].LabelSelector == nil || !equality.Semantic.DeepEqual(got[0].LabelSelector.MatchLabels, r.deployment.Spec.Selector.MatchLabels) {
					t.Errorf("topologySpreadConstraints %+v", got)
				}
			},
		},
		{
			name:   "logLevel",
			values: `logLevel: debug`,
			check:  wantArgs("--log-level=debug"),
		},
		{
			name:   "dryRun",
			values: `dryRun: true`,
			check:  wantArgs("--dry-run"),
		},
		{
			name:   "every setting",
			values: everyOption,
			check: wantArgs("--cluster-name=prod", "--metrics-addr=:9090", "--health-addr=:9091", "--interruption-queue=prod-interruptions",
				"--region=eu-west-1", "--batch-idle-duration=2s", "--batch-max-duration=30s", "--preference-policy=Ignore",
				"--spot-to-spot", "--dry-run", "--packing=Cost", "--enable-profiling"),
		},
		{
			name:   "ports",
			values: `{metrics: {port: 9090}, healthProbe: {port: 9091}}`,
			check: func(t *testing.T, r rendered) {
				ports := map[string]int32{}
				for _, p := range r.container.Ports {
					ports[p.Name] = p.ContainerPort
				}
				var svc corev1.Service
				convert(t, only(t, r.objs, "Service"), &svc)
				if ports["http-metrics"] != 9090 || ports["http"] != 9091 || svc.Spec.Ports[0].Port != 9090 {
					t.Errorf("container ports %v, service port %d", ports, svc.Spec.Ports[0].Port)
				}
			},
		},
		{
			name:   "an existing ServiceAccount",
			values: `serviceAccount: {create: false, name: platform-autoscaler}`,
			check: func(t *testing.T, r rendered) {
				if slices.Contains(kinds(r.objs), "ServiceAccount") {
					t.Error("a ServiceAccount rendered with serviceAccount.create false")
				}
				if got := r.deployment.Spec.Template.Spec.ServiceAccountName; got != "platform-autoscaler" {
					t.Errorf("serviceAccountName %q", got)
				}
				var b rbacv1.ClusterRoleBinding
				convert(t, only(t, r.objs, "ClusterRoleBinding"), &b)
				if b.Subjects[0].Name != "platform-autoscaler" {
					t.Errorf("bound %+v", b.Subjects)
				}
			},
		},
		{
			name:   "image digest",
			values: `image: {repository: registry.example/nodepilot, tag: v1, digest: "sha256:` + strings.Repeat("ab", 32) + `", pullPolicy: Always}`,
			check: func(t *testing.T, r rendered) {
				if want := "registry.example/nodepilot:v1@sha256:" + strings.Repeat("ab", 32); r.container.Image != want || r.container.ImagePullPolicy != corev1.PullAlways {
					t.Errorf("image %q %s, want %q Always", r.container.Image, r.container.ImagePullPolicy, want)
				}
			},
		},
		{
			name:   "pod annotations, labels and the PDB's name",
			values: `{podAnnotations: {a: b}, podLabels: {team: platform}, podDisruptionBudget: {name: nodepilot-pdb, maxUnavailable: "50%"}}`,
			check: func(t *testing.T, r rendered) {
				meta := r.deployment.Spec.Template.ObjectMeta
				if meta.Annotations["a"] != "b" || meta.Labels["team"] != "platform" {
					t.Errorf("pod metadata %+v", meta)
				}
				var pdb policyv1.PodDisruptionBudget
				convert(t, only(t, r.objs, "PodDisruptionBudget"), &pdb)
				if pdb.Name != "nodepilot-pdb" || pdb.Spec.MaxUnavailable.String() != "50%" {
					t.Errorf("PodDisruptionBudget %s %v", pdb.Name, pdb.Spec.MaxUnavailable)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, render(t, tc.values)) })
	}
}

// TestReleaseNames: objects are named after the release, and a second release in another
// namespace collides with the first on nothing cluster-scoped.
func TestReleaseNames(t *testing.T) {
	a := renderAs(t, "nodepilot", "nodepilot", "")
	b := renderAs(t, "canary", "canary-ns", "")
	if a.deployment.Name != "nodepilot" || b.deployment.Name != "canary-nodepilot" || b.deployment.Namespace != "canary-ns" {
		t.Errorf("Deployments %s/%s and %s/%s", a.deployment.Namespace, a.deployment.Name, b.deployment.Namespace, b.deployment.Name)
	}
	for _, kind := range []string{"ClusterRole", "ClusterRoleBinding"} {
		if only(t, a.objs, kind).GetName() == only(t, b.objs, kind).GetName() {
			t.Errorf("both releases name their %s %s", kind, only(t, a.objs, kind).GetName())
		}
	}
}

func subset(small, big map[string]string) bool {
	for k, v := range small {
		if big[k] != v {
			return false
		}
	}
	return true
}

// wantArgs checks that the controller's args hold each of want.
func wantArgs(want ...string) func(t *testing.T, r rendered) {
	return func(t *testing.T, r rendered) {
		t.Helper()
		for _, w := range want {
			if !slices.Contains(r.container.Args, w) {
				t.Errorf("args %q lack %q", r.container.Args, w)
			}
		}
	}
}

// TestRenderRefuses: bad values fail the install, with an error naming the value.
func TestRenderRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, values string
		overBase     bool
		want         string
	}{
		{name: "no cluster name", values: `logLevel: info`, want: "/settings/clusterName"},
		{name: "empty cluster name", values: `settings: {clusterName: ""}`, want: "/settings/clusterName"},
		{name: "negative replicas", values: `replicas: -1`, overBase: true, want: "/replicas"},
		{name: "log level loud", values: `logLevel: loud`, overBase: true, want: "/logLevel"},
		{name: "a Karpenter setting nodepilot lacks", values: `settings: {clusterEndpoint: https://example}`, overBase: true, want: "clusterEndpoint"},
		{name: "a duration that is none", values: `settings: {batchIdleDuration: soon}`, overBase: true, want: "/settings/batchIdleDuration"},
		{name: "a preference policy", values: `settings: {preferencePolicy: Maybe}`, overBase: true, want: "/settings/preferencePolicy"},
		{name: "an extra arg that is no flag", values: `extraArgs: [Cost]`, overBase: true, want: "/extraArgs/0"},
		{name: "a pull policy", values: `image: {pullPolicy: Sometimes}`, overBase: true, want: "/image/pullPolicy"},
		{name: "a digest", values: `image: {digest: latest}`, overBase: true, want: "/image/digest"},
		{name: "a PDB maxUnavailable", values: `podDisruptionBudget: {maxUnavailable: one}`, overBase: true, want: "/podDisruptionBudget/maxUnavailable"},
		{name: "a port", values: `metrics: {port: 80800}`, overBase: true, want: "/metrics/port"},
		{name: "no ServiceAccount", values: `serviceAccount: {create: false}`, overBase: true, want: "/serviceAccount/name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := charts.Render("nodepilot", "nodepilot", values(t, tc.values, tc.overBase))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Render = %v, want an error naming %s", err, tc.want)
			}
		})
	}
}

// TestArgsAreControllerFlags: every flag the Deployment passes is one `nodepilot controller`
// registers (read from the registrations in controller.go and flags.go), a flag without a value
// a boolean one, and POD_NAMESPACE is the variable the controller reads.
func TestArgsAreControllerFlags(t *testing.T) {
	registered := controllerFlags(t)
	r := render(t, everyOption)
	if len(r.container.Args) == 0 || r.container.Args[0] != "controller" {
		t.Fatalf("args %q, want the controller command first", r.container.Args)
	}
	for _, arg := range r.container.Args[1:] {
		name, _, hasValue := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
		method, ok := registered[name]
		switch {
		case !strings.HasPrefix(arg, "--") || !ok:
			t.Errorf("%q is no flag of nodepilot controller (it has %v)", arg, registered)
		case !hasValue && method != "BoolVar":
			t.Errorf("%q has no value, and is a %s flag", arg, method)
		}
	}
	src, err := os.ReadFile("../controller.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte(`envOr("POD_NAMESPACE"`)) {
		t.Error("controller.go no longer reads POD_NAMESPACE, which the Deployment sets for the Lease's namespace")
	}
}

// controllerFlags returns the flags controller.go and flags.go register (fs.XVar(&v, "name", ...)),
// each with its registering method.
func controllerFlags(t *testing.T) map[string]string {
	t.Helper()
	flags := map[string]string{}
	fset := token.NewFileSet()
	for _, path := range []string{"../controller.go", "../flags.go"} {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			lit, isLit := call.Args[1].(*ast.BasicLit)
			if !ok || !strings.HasSuffix(sel.Sel.Name, "Var") || !isLit || lit.Kind != token.STRING {
				return true
			}
			if name, err := strconv.Unquote(lit.Value); err == nil {
				flags[name] = sel.Sel.Name
			}
			return true
		})
	}
	if len(flags) < 10 {
		t.Fatalf("read only %d flag registrations from controller.go and flags.go: %v", len(flags), flags)
	}
	return flags
}
