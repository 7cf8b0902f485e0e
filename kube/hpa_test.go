package kube_test

import (
	"regexp"
	"strings"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	planmanifest "github.com/nodepilot/nodepilot/kube/manifest"
)

// testHPARefusals: plan refuses exactly the HorizontalPodAutoscalers the real API server refuses,
// naming the same field, and accepts what it accepts (a server-side dry run: nothing is stored).
// Each refused case has one fault: the server's message names no other field.
func testHPARefusals(t *testing.T, e *env) {
	const head = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h, namespace: default}\nspec:\n"
	for _, tc := range []struct {
		name, spec, field string // field is empty when both accept it
	}{
		{"valid", "  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 2\n  maxReplicas: 5\n", ""},
		{"maxReplicas missing", "  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n", "spec.maxReplicas"},
		{"maxReplicas negative", "  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: -1\n", "spec.maxReplicas"},
		{"minReplicas negative", "  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: -1\n  maxReplicas: 3\n", "spec.minReplicas"},
		{"minReplicas 0 on CPU", "  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 0\n  maxReplicas: 3\n", "spec.metrics"},
		{"minReplicas 0 on an External metric", "  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 0\n  maxReplicas: 3\n" +
			"  metrics: [{type: External, external: {metric: {name: queue}, target: {type: AverageValue, averageValue: '5'}}}]\n", ""},
		{"maxReplicas below minReplicas", "  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 4\n  maxReplicas: 2\n", "spec.maxReplicas"},
		{"no target name", "  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment}\n  maxReplicas: 3\n", "spec.scaleTargetRef.name"},
		{"no target kind", "  scaleTargetRef: {apiVersion: apps/v1, name: web}\n  maxReplicas: 3\n", "spec.scaleTargetRef.kind"},
		{"a target apiVersion without a group", "  scaleTargetRef: {apiVersion: v1, kind: Deployment, name: web}\n  maxReplicas: 3\n", "spec.scaleTargetRef.apiVersion"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := head + tc.spec
			var hpa autoscalingv2.HorizontalPodAutoscaler
			if err := yaml.Unmarshal([]byte(doc), &hpa); err != nil {
				t.Fatal(err)
			}
			_, serverErr := e.client.AutoscalingV2().HorizontalPodAutoscalers("default").Create(t.Context(), &hpa,
				metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			_, planErr := planmanifest.Decode("hpa.yaml", []byte(doc))
			if tc.field == "" {
				if serverErr != nil || planErr != nil {
					t.Fatalf("the API server says %v, plan says %v; want both to accept it", serverErr, planErr)
				}
				return
			}
			if !apierrors.IsInvalid(serverErr) || !strings.Contains(serverErr.Error(), tc.field) || !onlyField(serverErr.Error(), tc.field) {
				t.Fatalf("the API server says %v; want Invalid on %s alone (the test's premise)", serverErr, tc.field)
			}
			if planErr == nil || !strings.Contains(planErr.Error(), tc.field) {
				t.Errorf("plan says %v where the API server refuses %s: %v", planErr, tc.field, serverErr)
			}
		})
	}
}

var fieldPath = regexp.MustCompile(`spec\.[a-zA-Z.]+`)

// onlyField reports whether every field path msg names is field.
func onlyField(msg, field string) bool {
	for _, f := range fieldPath.FindAllString(msg, -1) {
		if f != field {
			return false
		}
	}
	return true
}
