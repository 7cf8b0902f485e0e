package manifest

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func hpa(name, target, bounds string) string {
	return fmt.Sprintf("apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: %s}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: %s}\n  %s\n", name, target, bounds)
}

func scaledObject(name, spec string) string {
	return fmt.Sprintf("apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: %s}\nspec:\n%s", name, spec)
}

func deployment(name string, replicas int) string {
	return fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: %s}\nspec:\n  replicas: %d\n  template:\n    metadata: {labels: {app: %s}}\n    spec: {containers: [{name: c, image: i, resources: {requests: {cpu: 500m}}}]}\n", name, replicas, name)
}

const cron = "  triggers: [{type: cron, metadata: {timezone: UTC, start: '0 * * * *', end: '5 * * * *', desiredReplicas: '1'}}]\n"

func TestDecodeScalerRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, manifest, want string
	}{
		{"an HPA", hpa("h", "web", "maxReplicas: 5"), ""},
		{"an HPA without maxReplicas", hpa("h", "web", "minReplicas: 2"),
			`HorizontalPodAutoscaler "h": spec.maxReplicas: must be set and greater than 0`},
		{"an HPA with a negative maxReplicas", hpa("h", "web", "maxReplicas: -2"),
			`HorizontalPodAutoscaler "h": spec.maxReplicas: must be greater than or equal to 1`},
		{"an HPA whose maximum is below its minimum", hpa("h", "web", "minReplicas: 4\n  maxReplicas: 2"),
			"HorizontalPodAutoscaler \"h\": spec.maxReplicas: must be greater than or equal to `minReplicas`"},
		{"an HPA scaling to zero on CPU", hpa("h", "web", "minReplicas: 0\n  maxReplicas: 2"),
			`HorizontalPodAutoscaler "h": spec.metrics: must specify at least one Object or External metric to support scaling to zero replicas`},
		{"an HPA scaling to zero on an External metric", hpa("h", "web", "minReplicas: 0\n  maxReplicas: 2\n  metrics: [{type: External, external: {metric: {name: queue}, target: {type: AverageValue, averageValue: '5'}}}]"), ""},
		{"an HPA with a negative minReplicas", hpa("h", "web", "minReplicas: -1\n  maxReplicas: 2"),
			`HorizontalPodAutoscaler "h": spec.minReplicas: must be greater than or equal to 0`},
		{"an HPA whose target names no group", strings.Replace(hpa("h", "web", "maxReplicas: 2"), "apiVersion: apps/v1, ", "apiVersion: v1, ", 1),
			`HorizontalPodAutoscaler "h": spec.scaleTargetRef.apiVersion: apiVersion must specify API group, such as apps/v1`},
		{"an HPA without a target name", hpa("h", "''", "maxReplicas: 5"),
			`HorizontalPodAutoscaler "h": spec.scaleTargetRef.name: the name of the workload to scale`},
		{"an autoscaling/v1 HPA", strings.Replace(hpa("h", "web", "maxReplicas: 5"), "autoscaling/v2", "autoscaling/v1", 1),
			`HorizontalPodAutoscaler "h": apiVersion autoscaling/v1 is not supported for HorizontalPodAutoscaler; use autoscaling/v2`},
		{"a ScaledObject", scaledObject("so", "  scaleTargetRef: {name: web}\n  pollingInterval: 30\n  minReplicaCount: 0\n  maxReplicaCount: 3\n"+cron), ""},
		{"a ScaledObject with a misspelt field", scaledObject("so", "  scaleTargetRef: {name: web}\n  maxReplicas: 3\n"+cron),
			`ScaledObject "so": unknown field "spec.maxReplicas"`},
		{"a ScaledObject without triggers", scaledObject("so", "  scaleTargetRef: {name: web}\n"),
			`ScaledObject "so": spec.triggers: KEDA needs at least one trigger`},
		{"a ScaledObject without a target", scaledObject("so", cron),
			`ScaledObject "so": spec.scaleTargetRef: the workload to scale`},
		{"a ScaledObject whose maximum is below its minimum", scaledObject("so", "  scaleTargetRef: {name: web}\n  minReplicaCount: 3\n  maxReplicaCount: 2\n"+cron),
			`ScaledObject "so": spec.maxReplicaCount: must be at least minReplicaCount (3)`},
		{"a ScaledObject with a negative minimum", scaledObject("so", "  scaleTargetRef: {name: web}\n  minReplicaCount: -1\n"+cron),
			`ScaledObject "so": spec.minReplicaCount: must be 0 or more`},
		{"a ScaledObject of at most 0 replicas, its minimum counting as 1", scaledObject("so", "  scaleTargetRef: {name: web}\n  minReplicaCount: 0\n  maxReplicaCount: 0\n"+cron),
			`ScaledObject "so": spec.maxReplicaCount: must be at least minReplicaCount (1)`},
		{"a ScaledObject idling at 0 below a minimum of 0", scaledObject("so", "  scaleTargetRef: {name: web}\n  idleReplicaCount: 0\n  minReplicaCount: 0\n"+cron), ""},
		{"a ScaledObject idling without a minimum", scaledObject("so", "  scaleTargetRef: {name: web}\n  idleReplicaCount: 0\n"+cron),
			`ScaledObject "so": spec.idleReplicaCount: must be below minReplicaCount (0)`},
		{"a ScaledObject idling at its minimum", scaledObject("so", "  scaleTargetRef: {name: web}\n  idleReplicaCount: 2\n  minReplicaCount: 2\n"+cron),
			`ScaledObject "so": spec.idleReplicaCount: must be below minReplicaCount (2)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, err := Decode("s.yaml", []byte(tc.manifest))
			if tc.want == "" {
				if err != nil || len(set.Scalers) != 1 {
					t.Fatalf("Decode = %v, %v; want one scaler", set, err)
				}
				return
			}
			if want := "s.yaml: document 1: " + tc.want; err == nil || err.Error() != want {
				t.Fatalf("error = %v\nwant    %s", err, want)
			}
		})
	}
}

func TestScaled(t *testing.T) {
	docs := strings.Join([]string{
		deployment("web", 2), hpa("web", "web", "minReplicas: 2\n  maxReplicas: 5"),
		deployment("batch", 0), scaledObject("batch", "  scaleTargetRef: {name: batch}\n  maxReplicaCount: 3\n"+cron),
		deployment("api", 4), hpa("api", "api", "maxReplicas: 3"),
		scaledObject("php", "  scaleTargetRef: {name: php-apache}\n  maxReplicaCount: 2\n"+cron),
		"apiVersion: v1\nkind: Pod\nmetadata: {name: solo}\nspec: {containers: [{name: c, image: i}]}\n",
		hpa("web-peak", "web", "maxReplicas: 7"),
		"apiVersion: batch/v1\nkind: Job\nmetadata: {name: once}\nspec:\n  template:\n    spec: {restartPolicy: Never, containers: [{name: c, image: i}]}\n",
		strings.Replace(hpa("once", "once", "maxReplicas: 4"), "kind: Deployment", "kind: Job", 1),
	}, "---\n")
	set, err := Decode("s.yaml", []byte(docs))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		atMax bool
		pods  string
		notes []string
	}{
		{false, "web-0 web-1 api-0 api-1 api-2 api-3 solo once-0", []string{
			`s.yaml: document 2: HorizontalPodAutoscaler "default/web" scales Deployment web between 2 and 5 replicas: planned at the 2 it has (--at-max plans 5)`,
			`s.yaml: document 4: ScaledObject "default/batch" scales Deployment batch between 0 and 3 replicas: planned at the 0 it has (--at-max plans 3)`,
			`s.yaml: document 6: HorizontalPodAutoscaler "default/api" scales Deployment api between 1 and 3 replicas: planned at the 4 it has (--at-max plans 3)`,
			`s.yaml: document 7: ScaledObject "default/php" scales Deployment default/php-apache, which these manifests do not define: nothing is planned for it`,
			`s.yaml: document 9: HorizontalPodAutoscaler "default/web-peak" scales Deployment web between 1 and 7 replicas: planned at the 2 it has (--at-max plans 7)`,
			`s.yaml: document 11: HorizontalPodAutoscaler "default/once" scales Job once, which has no scale subresource: nothing is planned for it`,
		}},
		{true, "solo once-0 web-0 web-1 web-2 web-3 web-4 web-5 web-6 batch-0 batch-1 batch-2 api-0 api-1 api-2", []string{
			`s.yaml: document 2: HorizontalPodAutoscaler "default/web" scales Deployment web between 2 and 5 replicas: planned at its maximum, 5 (it has 2)`,
			`s.yaml: document 4: ScaledObject "default/batch" scales Deployment batch between 0 and 3 replicas: planned at its maximum, 3 (it has 0)`,
			`s.yaml: document 6: HorizontalPodAutoscaler "default/api" scales Deployment api between 1 and 3 replicas: planned at its maximum, 3 (it has 4)`,
			`s.yaml: document 7: ScaledObject "default/php" scales Deployment default/php-apache, which these manifests do not define: nothing is planned for it`,
			`s.yaml: document 9: HorizontalPodAutoscaler "default/web-peak" also scales Deployment web: planned at the larger maximum`,
			`s.yaml: document 11: HorizontalPodAutoscaler "default/once" scales Job once, which has no scale subresource: nothing is planned for it`,
		}},
	} {
		t.Run(fmt.Sprint("atMax=", tc.atMax), func(t *testing.T) {
			scaled, err := set.Scaled(tc.atMax)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range scaled.Pods {
				names = append(names, p.Name)
				if ref := metav1.GetControllerOf(p); p.Name != "solo" && (ref == nil || !strings.HasPrefix(p.Name, ref.Name+"-")) {
					t.Errorf("pod %s: owner %v", p.Name, p.OwnerReferences)
				}
			}
			if got := strings.Join(names, " "); got != tc.pods {
				t.Errorf("pods = %s\nwant   %s", got, tc.pods)
			}
			if got, want := strings.Join(scaled.Notes, "\n"), strings.Join(tc.notes, "\n"); got != want {
				t.Errorf("notes:\n%s\nwant\n%s", got, want)
			}
			if len(set.Pods) != 8 || len(set.Notes) != 0 {
				t.Errorf("Scaled changed the set it was given: %d pods, %d notes", len(set.Pods), len(set.Notes))
			}
		})
	}
}

func TestScaledRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, manifest, want string
	}{
		{"more pods than a plan holds", deployment("web", 1) + "---\n" + hpa("web", "web", fmt.Sprintf("maxReplicas: %d", maxPods+1)),
			"at their scalers' maximums the workloads would make 100001 pods; one plan holds 100000: lower a maxReplicas or plan without --at-max"},
		{"a pod the manifests already define", deployment("web", 1) + "---\n" + hpa("web", "web", "maxReplicas: 3") +
			"---\napiVersion: v1\nkind: Pod\nmetadata: {name: web-2}\nspec: {containers: [{name: c, image: i}]}\n",
			"Deployment web at 3 replicas would make pod default/web-2, which the manifests already define"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, err := Decode("s.yaml", []byte(tc.manifest))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := set.Scaled(false); err != nil {
				t.Fatalf("as written: %v", err)
			}
			if _, err := set.Scaled(true); err == nil || err.Error() != tc.want {
				t.Fatalf("error = %v\nwant    %s", err, tc.want)
			}
		})
	}
}
