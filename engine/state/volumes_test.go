package state

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

func TestVolumesRequirements(t *testing.T) {
	zone := func(zones ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: zones}
	}
	// claim is a claim bound to volume, as the volume controller leaves it, or unbound when volume
	// is "".
	claim := func(name, volume, class string) *corev1.PersistentVolumeClaim {
		pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "db", Name: name},
			Spec: corev1.PersistentVolumeClaimSpec{VolumeName: volume, StorageClassName: ptr.To(class)}}
		if volume != "" {
			pvc.Annotations = map[string]string{"pv.kubernetes.io/bind-completed": "yes"}
			pvc.Status.Phase = corev1.ClaimBound
		}
		return pvc
	}
	volume := func(name string, terms ...[]corev1.NodeSelectorRequirement) *corev1.PersistentVolume {
		pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if len(terms) > 0 {
			pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{}}
			for _, t := range terms {
				pv.Spec.NodeAffinity.Required.NodeSelectorTerms = append(pv.Spec.NodeAffinity.Required.NodeSelectorTerms, corev1.NodeSelectorTerm{MatchExpressions: t})
			}
		}
		return pv
	}
	localDisk := func(name string, terms ...[]corev1.NodeSelectorRequirement) *corev1.PersistentVolume {
		pv := volume(name, terms...)
		pv.Spec.Local = &corev1.LocalVolumeSource{Path: "/mnt/disks/" + name}
		return pv
	}
	class := func(name string, zones ...string) *storagev1.StorageClass {
		sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}}
		for _, z := range zones {
			sc.AllowedTopologies = append(sc.AllowedTopologies, corev1.TopologySelectorTerm{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{
				{Key: "topology.ebs.csi.aws.com/zone", Values: []string{z}}}})
		}
		return sc
	}
	deleting := func(pvc *corev1.PersistentVolumeClaim) *corev1.PersistentVolumeClaim {
		pvc.DeletionTimestamp = &metav1.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		return pvc
	}
	lost := claim("lost", "pv-lost", "gp3")
	lost.Status.Phase = corev1.ClaimLost
	unfinished := claim("unfinished", "pv-a", "gp3")
	unfinished.Annotations = nil
	deletedVolume := volume("pv-deleting")
	deletedVolume.DeletionTimestamp = &metav1.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	immediate := class("gp2")
	immediate.VolumeBindingMode = ptr.To(storagev1.VolumeBindingImmediate)
	waitForConsumer := class("gp3-east-1b", "us-east-1b")
	waitForConsumer.VolumeBindingMode = ptr.To(storagev1.VolumeBindingWaitForFirstConsumer)
	emptyTerm := class("gp3-empty-term", "us-east-1c")
	emptyTerm.AllowedTopologies = append([]corev1.TopologySelectorTerm{{}}, emptyTerm.AllowedTopologies...)
	usesClaim := func(names ...string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "db", Name: "db-0"}}
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "config", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
		for _, n := range names {
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: n, VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: n}}})
		}
		return p
	}
	ephemeral := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "db", Name: "cache-0"}, Spec: corev1.PodSpec{Volumes: []corev1.Volume{{
		Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
			Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("gp3-east-1c")}}}}}}}}
	hostnameAndZone := []corev1.NodeSelectorRequirement{zone("us-east-1a"), {Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{"node-1"}}}
	objects := []any{
		claim("bound-a", "pv-a", "gp3"), volume("pv-a", []corev1.NodeSelectorRequirement{zone("us-east-1a")}),
		claim("bound-ab", "pv-ab", "gp3"), volume("pv-ab", []corev1.NodeSelectorRequirement{zone("us-east-1a")}, []corev1.NodeSelectorRequirement{zone("us-east-1b")}),
		claim("bound-local", "pv-local", "local"), volume("pv-local", hostnameAndZone, []corev1.NodeSelectorRequirement{zone("us-east-1b")}),
		claim("bound-anywhere", "pv-anywhere", "efs"), volume("pv-anywhere"),
		claim("on-disk", "pv-disk", "local"), localDisk("pv-disk", hostnameAndZone),
		claim("on-this-node", "pv-this-node", "local"), localDisk("pv-this-node", hostnameAndZone[1:], []corev1.NodeSelectorRequirement{zone("us-east-1a")}),
		claim("waiting", "", "gp3-east-1b"), waitForConsumer, class("gp3-east-1c", "us-east-1c"),
		claim("waiting-any", "", "gp3"), class("gp3"),
		claim("gone", "pv-gone", "gp3"), claim("unclassed", "", "missing-class"),
		deleting(claim("deleting", "pv-a", "gp3")), lost, unfinished, claim("on-deleted", "pv-deleting", "gp3"), deletedVolume,
		claim("empty-term", "pv-empty-term", "gp3"), volume("pv-empty-term", nil, []corev1.NodeSelectorRequirement{zone("us-east-1b")}),
		claim("empty-topology", "", "gp3-empty-term"), emptyTerm,
		claim("no-class", "", ""), claim("immediate", "", "gp2"), immediate,
	}
	for _, tc := range []struct {
		name    string
		pod     *corev1.Pod
		want    []corev1.NodeSelectorRequirement
		wantErr string
		hide    string // a kind the identity may not read
	}{
		{name: "a bound volume's zone", pod: usesClaim("bound-a"), want: []corev1.NodeSelectorRequirement{zone("us-east-1a")}},
		{name: "a volume's alternative zones are merged", pod: usesClaim("bound-ab"), want: []corev1.NodeSelectorRequirement{zone("us-east-1a", "us-east-1b")}},
		{name: "alternatives of other shapes keep the first", pod: usesClaim("bound-local"), want: hostnameAndZone},
		{name: "a volume without node affinity adds nothing", pod: usesClaim("bound-anywhere")},
		{name: "a local volume's hostname is left out", pod: usesClaim("on-disk"), want: []corev1.NodeSelectorRequirement{zone("us-east-1a")}},
		{name: "a local volume's hostname-only term allows every node", pod: usesClaim("on-this-node")},
		{name: "a claim waiting for its first consumer, its class's zones", pod: usesClaim("waiting"),
			want: []corev1.NodeSelectorRequirement{{Key: "topology.ebs.csi.aws.com/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"us-east-1b"}}}},
		{name: "a class without allowed topologies adds nothing", pod: usesClaim("waiting-any")},
		{name: "a volume's empty term selects nothing, and is skipped", pod: usesClaim("empty-term"), want: []corev1.NodeSelectorRequirement{zone("us-east-1b")}},
		{name: "a class's empty term selects nothing, and is skipped", pod: usesClaim("empty-topology"),
			want: []corev1.NodeSelectorRequirement{{Key: "topology.ebs.csi.aws.com/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"us-east-1c"}}}},
		{name: "every volume adds its own", pod: usesClaim("bound-a", "waiting"), want: []corev1.NodeSelectorRequirement{zone("us-east-1a"),
			{Key: "topology.ebs.csi.aws.com/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"us-east-1b"}}}},
		{name: "an ephemeral volume before its claim is made, its template's class", pod: ephemeral,
			want: []corev1.NodeSelectorRequirement{{Key: "topology.ebs.csi.aws.com/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"us-east-1c"}}}},
		{name: "a missing claim", pod: usesClaim("nowhere"), wantErr: "PersistentVolumeClaim db/nowhere does not exist"},
		{name: "a missing volume", pod: usesClaim("gone"), wantErr: "bound to PersistentVolume pv-gone, which does not exist"},
		{name: "a missing class", pod: usesClaim("unclassed"), wantErr: "StorageClass missing-class, which does not exist"},
		{name: "a claim being deleted", pod: usesClaim("deleting"), wantErr: "db/deleting is being deleted"},
		{name: "a Lost claim", pod: usesClaim("lost"), wantErr: "db/lost is Lost: PersistentVolume pv-lost"},
		{name: "a binding not complete", pod: usesClaim("unfinished"), wantErr: "the binding is not complete (no pv.kubernetes.io/bind-completed annotation)"},
		{name: "a volume being deleted", pod: usesClaim("on-deleted"), wantErr: "PersistentVolume pv-deleting, which is being deleted"},
		{name: "an unbound claim without a class", pod: usesClaim("no-class"), wantErr: "db/no-class is not bound and names no StorageClass"},
		{name: "an unbound claim of an Immediate class", pod: usesClaim("immediate"), wantErr: "StorageClass gp2 binds at once (Immediate)"},
		{name: "one volume's error is the pod's", pod: usesClaim("bound-a", "deleting"), wantErr: "db/deleting is being deleted"},
		{name: "volumes not readable add nothing", pod: usesClaim("nowhere"), hide: KindPV},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCluster(clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
			for _, o := range objects {
				switch o := o.(type) {
				case *corev1.PersistentVolumeClaim:
					c.UpdatePVC(o)
				case *corev1.PersistentVolume:
					c.UpdatePV(o)
				case *storagev1.StorageClass:
					c.UpdateStorageClass(o)
				}
			}
			if tc.hide != "" {
				c.MarkUnwatched(tc.hide, "forbidden")
			}
			got, err := c.Snapshot().Volumes.Requirements(tc.pod)
			if tc.wantErr != "" {
				var ve *VolumeError
				if !errors.As(err, &ve) || !strings.Contains(err.Error(), tc.wantErr) || ve.Hint() == "" {
					t.Fatalf("error %v, want a VolumeError with a hint saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("requirements\n%v\nwant\n%v", got, tc.want)
			}
		})
	}
}

// TestVolumesFollowChanges: a snapshot sees the claims, volumes and classes as they were when it
// was taken, and the next one sees a change.
func TestVolumesFollowChanges(t *testing.T) {
	c := NewCluster(clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "db", Name: "db-0"}, Spec: corev1.PodSpec{Volumes: []corev1.Volume{{
		Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}}}
	before := c.Snapshot()
	c.UpdateStorageClass(&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "gp3"}})
	c.UpdatePVC(&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "db", Name: "data"},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("gp3")}})
	after := c.Snapshot()
	if _, err := before.Volumes.Requirements(pod); err == nil {
		t.Error("the snapshot taken before the claim existed finds it")
	}
	if _, err := after.Volumes.Requirements(pod); err != nil {
		t.Errorf("the snapshot taken after the claim was stored: %v", err)
	}
	c.DeletePVC(types.NamespacedName{Namespace: "db", Name: "data"})
	if _, err := c.Snapshot().Volumes.Requirements(pod); err == nil {
		t.Error("the snapshot taken after the claim was deleted finds it")
	}
}
