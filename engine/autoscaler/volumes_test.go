package autoscaler_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/enginetest"
)

// boundClaim is a claim in the default namespace bound to a volume, as the volume controller
// leaves it.
func boundClaim(name, volume string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Annotations: map[string]string{"pv.kubernetes.io/bind-completed": "yes"}},
		Spec:       corev1.PersistentVolumeClaimSpec{VolumeName: volume},
		Status:     corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}}
}

// TestPodsStayInTheirVolumesZone: a pod whose claim is bound to a volume in one zone gets its
// node in that zone, and consolidation does not move it to a node with room in another zone,
// where kube-scheduler would leave it pending (its volume cannot attach there).
func TestPodsStayInTheirVolumesZone(t *testing.T) {
	h := newHarness(t)
	h.NodePool("default", consolidateAfter(0))
	const zone = "us-east-1c"
	h.Cluster.UpdatePVC(boundClaim("data", "pv-data"))
	h.Cluster.UpdatePV(&corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-data"},
		Spec: corev1.PersistentVolumeSpec{NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "topology.ebs.csi.aws.com/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}}}}}}}})
	claimsData := func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}})
	}
	zoneOf := func(node string) string {
		for _, n := range h.managedNodes() {
			if n.Name() == node && n.Node != nil {
				return n.Node.Labels[corev1.LabelTopologyZone]
			}
		}
		return ""
	}
	h.Deployment("db", 1, enginetest.Resources("500m", ""), claimsData)
	h.Advance(time.Minute, time.Second)
	dbNode := h.nodeOf(t, "db")
	if got := zoneOf(dbNode); got != zone {
		t.Fatalf("db runs on %s in %q, want a node in %s, its volume's zone", dbNode, got, zone)
	}
	// A node in another zone with room for db: without its volume db could move there and its
	// node go.
	h.Deployment("web", 1, enginetest.Resources("1", ""),
		enginetest.WithNodeRequirements(corev1.NodeSelectorRequirement{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"us-east-1a"}}))
	h.Advance(5*time.Minute, time.Second)
	if err := h.CheckConverged(); err != nil {
		t.Fatal(err)
	}
	if got := h.nodeOf(t, "db"); got != dbNode {
		t.Errorf("db moved from %s to %s in %q", dbNode, got, zoneOf(got))
	}
	for _, d := range h.decisions(false) {
		t.Errorf("consolidation decided %q, want db's node kept", d.Message)
	}
}
