package state

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// UpdateVolumeAttachment stores a VolumeAttachment.
func (c *Cluster) UpdateVolumeAttachment(va *storagev1.VolumeAttachment) {
	update(c, c.attachments, va.Name, va)
}

// DeleteVolumeAttachment forgets a VolumeAttachment.
func (c *Cluster) DeleteVolumeAttachment(name string) { remove(c, c.attachments, name) }

// UpdatePVC stores a PersistentVolumeClaim.
func (c *Cluster) UpdatePVC(pvc *corev1.PersistentVolumeClaim) {
	updateVolume(c, c.pvcs, types.NamespacedName{Namespace: pvc.Namespace, Name: pvc.Name}, pvc)
}

// DeletePVC forgets a PersistentVolumeClaim.
func (c *Cluster) DeletePVC(key types.NamespacedName) { removeVolume(c, c.pvcs, key) }

// UpdatePV stores a PersistentVolume.
func (c *Cluster) UpdatePV(pv *corev1.PersistentVolume) { updateVolume(c, c.pvs, pv.Name, pv) }

// DeletePV forgets a PersistentVolume.
func (c *Cluster) DeletePV(name string) { removeVolume(c, c.pvs, name) }

// UpdateStorageClass stores a StorageClass.
func (c *Cluster) UpdateStorageClass(sc *storagev1.StorageClass) {
	updateVolume(c, c.classes, sc.Name, sc)
}

// DeleteStorageClass forgets a StorageClass.
func (c *Cluster) DeleteStorageClass(name string) { removeVolume(c, c.classes, name) }

// updateVolume and removeVolume are update and remove for the objects Volumes reads: the next
// snapshot builds its view again.
func updateVolume[K comparable, V any](c *Cluster, m map[K]V, key K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	put(c, m, key, v)
	c.volumes.Store(nil)
}

func removeVolume[K comparable, V any](c *Cluster, m map[K]V, key K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if drop(c, m, key) {
		c.volumes.Store(nil)
	}
}

// Volumes is what the claims, volumes and storage classes say of where pods may run: a pod whose
// claim is bound may run only where its volume can be attached (the volume's node affinity, a
// zone for an EBS volume), and one whose claim waits for its first consumer only where its
// storage class may provision (allowed topologies). kube-scheduler's VolumeBinding filter holds
// pods to that, and so does Karpenter's scheduler: a node launched or kept elsewhere would not
// run the pod.
type Volumes struct {
	// unwatched says why one of the kinds it reads is not watched, or is "".
	unwatched string
	pvcs      map[types.NamespacedName]*corev1.PersistentVolumeClaim
	pvs       map[string]*corev1.PersistentVolume
	classes   map[string]*storagev1.StorageClass
}

// volumesView returns the snapshots' view, building it after a change; the caller holds the lock
// (read or write: concurrent builders under the read lock build the same view, one is kept).
func (c *Cluster) volumesView() *Volumes {
	if v := c.volumes.Load(); v != nil {
		return v
	}
	why := cmp.Or(c.unwatched[KindPVC], c.unwatched[KindPV], c.unwatched[KindStorageClass])
	c.volumes.CompareAndSwap(nil, &Volumes{unwatched: why, pvcs: maps.Clone(c.pvcs), pvs: maps.Clone(c.pvs), classes: maps.Clone(c.classes)})
	return c.volumes.Load()
}

// Requirements are the node requirements p's volumes add, or an error naming the claim, volume
// or storage class that p needs and that does not exist (kube-scheduler does not place such a pod
// either). Where a volume or a class allows several alternatives (node selector terms, allowed
// topologies), they are merged when each is one In requirement on the same key (zones, as EBS
// volumes and classes give them); otherwise only the first is kept, which places the pod on a
// subset of the nodes it may use, never outside them. When the identity may not read one of these
// kinds, volumes add nothing: the pod is placed as if it had none.
func (v *Volumes) Requirements(p *corev1.Pod) ([]corev1.NodeSelectorRequirement, error) {
	if v == nil || v.unwatched != "" {
		return nil, nil
	}
	var out []corev1.NodeSelectorRequirement
	for _, vol := range p.Spec.Volumes {
		var claim, class string
		switch {
		case vol.PersistentVolumeClaim != nil:
			claim = vol.PersistentVolumeClaim.ClaimName
		case vol.Ephemeral != nil && vol.Ephemeral.VolumeClaimTemplate != nil:
			// A generic ephemeral volume's claim is named after its pod, and made once the pod is:
			// until then its template names the class. Here nodepilot departs from Karpenter, whose
			// provisioner ignores the pod until the claim exists (GetPersistentVolumeClaim in
			// sigs.k8s.io/karpenter v1.14.3 fails on it): the claim comes within moments, and the
			// template already says where its volume may be made.
			claim, class = p.Name+"-"+vol.Name, ptr.Deref(vol.Ephemeral.VolumeClaimTemplate.Spec.StorageClassName, "")
		default:
			continue
		}
		pvc := v.pvcs[types.NamespacedName{Namespace: p.Namespace, Name: claim}]
		switch {
		case pvc == nil && vol.Ephemeral == nil:
			return nil, fmt.Errorf("its PersistentVolumeClaim %s/%s does not exist", p.Namespace, claim)
		case pvc != nil && pvc.Spec.VolumeName != "":
			pv := v.pvs[pvc.Spec.VolumeName]
			if pv == nil {
				return nil, fmt.Errorf("its PersistentVolumeClaim %s/%s is bound to PersistentVolume %s, which does not exist", p.Namespace, claim, pvc.Spec.VolumeName)
			}
			if a := pv.Spec.NodeAffinity; a != nil && a.Required != nil {
				out = append(out, oneTerm(termsOf(pv, a.Required.NodeSelectorTerms))...)
			}
			continue
		case pvc != nil:
			class = ptr.Deref(pvc.Spec.StorageClassName, "")
		}
		if class == "" {
			continue
		}
		sc := v.classes[class]
		if sc == nil {
			return nil, fmt.Errorf("its volume %s asks for StorageClass %s, which does not exist", vol.Name, class)
		}
		var terms [][]corev1.NodeSelectorRequirement
		for _, t := range sc.AllowedTopologies {
			var term []corev1.NodeSelectorRequirement
			for _, e := range t.MatchLabelExpressions {
				term = append(term, corev1.NodeSelectorRequirement{Key: e.Key, Operator: corev1.NodeSelectorOpIn, Values: e.Values})
			}
			terms = append(terms, term)
		}
		out = append(out, oneTerm(terms)...)
	}
	return out, nil
}

// termsOf lists a volume's node selector terms. A local or host path volume's hostname is left
// out, as Karpenter leaves it: its pod, moved, starts on a new node with a new volume of its own.
func termsOf(pv *corev1.PersistentVolume, ts []corev1.NodeSelectorTerm) [][]corev1.NodeSelectorRequirement {
	local := pv.Spec.Local != nil || pv.Spec.HostPath != nil
	out := make([][]corev1.NodeSelectorRequirement, 0, len(ts))
	for _, t := range ts {
		exprs := t.MatchExpressions
		if local {
			exprs = slices.DeleteFunc(slices.Clone(exprs), func(r corev1.NodeSelectorRequirement) bool { return r.Key == corev1.LabelHostname })
		}
		out = append(out, exprs)
	}
	return out
}

// oneTerm folds alternative terms into one: their values merged when each term is a single In
// on the same key, else the first term. A term without requirements allows every node, and so
// do the terms together.
func oneTerm(terms [][]corev1.NodeSelectorRequirement) []corev1.NodeSelectorRequirement {
	if len(terms) == 0 || slices.ContainsFunc(terms, func(t []corev1.NodeSelectorRequirement) bool { return len(t) == 0 }) {
		return nil
	}
	first := terms[0]
	if len(terms) == 1 || len(first) != 1 || first[0].Operator != corev1.NodeSelectorOpIn {
		return first
	}
	merged := corev1.NodeSelectorRequirement{Key: first[0].Key, Operator: corev1.NodeSelectorOpIn}
	for _, t := range terms {
		if len(t) != 1 || t[0].Key != merged.Key || t[0].Operator != corev1.NodeSelectorOpIn {
			return first
		}
		merged.Values = append(merged.Values, t[0].Values...)
	}
	return []corev1.NodeSelectorRequirement{merged}
}

// AttachedVolumes names, sorted, the VolumeAttachments of persistent volumes still attached to a
// node, except those of volumes claimed by the pods staying on it (the drain leaves them): what a
// node's termination waits for the attach-detach controller to remove, as Karpenter's does.
func (c *Cluster) AttachedVolumes(node string, staying []*corev1.Pod) []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	held := map[string]bool{}
	for _, p := range staying {
		for _, v := range p.Spec.Volumes {
			claim := ""
			switch {
			case v.PersistentVolumeClaim != nil:
				claim = v.PersistentVolumeClaim.ClaimName
			case v.Ephemeral != nil: // a generic ephemeral volume's claim is named after its pod
				claim = p.Name + "-" + v.Name
			default:
				continue
			}
			if pvc := c.pvcs[types.NamespacedName{Namespace: p.Namespace, Name: claim}]; pvc != nil && pvc.Spec.VolumeName != "" {
				held[pvc.Spec.VolumeName] = true
			}
		}
	}
	var out []string
	for name, va := range c.attachments {
		pv := va.Spec.Source.PersistentVolumeName
		if va.Spec.NodeName == node && pv != nil && !held[*pv] {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
