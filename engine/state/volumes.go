package state

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/types"
	volumehelpers "k8s.io/component-helpers/storage/volume"
	"k8s.io/utils/ptr"

	"github.com/nodepilot/nodepilot/engine/pods"
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
	// declared says the objects are declared, not watched (NewVolumes).
	declared bool
	pvcs     map[types.NamespacedName]*corev1.PersistentVolumeClaim
	pvs      map[string]*corev1.PersistentVolume
	classes  map[string]*storagev1.StorageClass
}

// NewVolumes is a view of claims, volumes and classes declared rather than watched (the plan
// command's manifests): a claim that names its volume counts as bound, since the binding
// annotation is the volume controller's to add once the claim is applied.
func NewVolumes(pvcs []*corev1.PersistentVolumeClaim, pvs []*corev1.PersistentVolume, classes []*storagev1.StorageClass) *Volumes {
	v := &Volumes{declared: true, pvcs: make(map[types.NamespacedName]*corev1.PersistentVolumeClaim, len(pvcs)),
		pvs: make(map[string]*corev1.PersistentVolume, len(pvs)), classes: make(map[string]*storagev1.StorageClass, len(classes))}
	for _, pvc := range pvcs {
		v.pvcs[types.NamespacedName{Namespace: pvc.Namespace, Name: pvc.Name}] = pvc
	}
	for _, pv := range pvs {
		v.pvs[pv.Name] = pv
	}
	for _, sc := range classes {
		v.classes[sc.Name] = sc
	}
	return v
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

// Requirements are the node requirements p's volumes add, or a *VolumeError saying why p cannot be
// placed yet. Where a volume or a class allows several alternatives (node selector terms, allowed
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
		terms, err := v.topology(p, vol)
		if err != nil {
			return nil, err
		}
		out = append(out, oneTerm(terms)...)
	}
	return out, nil
}

// VolumeError says why a pod's volumes keep it from being placed now, and what would let it be.
type VolumeError struct {
	// Problem names the claim, volume or class and what is wrong with it.
	Problem string
	// Fix says what lets the pod be placed.
	Fix string
}

func (e *VolumeError) Error() string { return e.Problem }

// Hint says what lets the pod be placed.
func (e *VolumeError) Hint() string { return e.Fix }

func volumeError(fix, format string, args ...any) *VolumeError {
	return &VolumeError{Problem: fmt.Sprintf(format, args...), Fix: fix}
}

// topology is where one of p's volumes can be attached, as alternative terms (none: anywhere).
// A pod is not placed, as Karpenter's provisioner does not place it (ValidatePersistentVolumeClaims
// in sigs.k8s.io/karpenter v1.14.3, after kube-scheduler's VolumeBinding filter), while its claim,
// bound volume or class is missing, its claim or volume is being deleted or its claim is Lost, the
// binding of a claim that names its volume is not complete, or an unbound claim names no class or
// one that binds at once rather than for its first consumer.
func (v *Volumes) topology(p *corev1.Pod, vol corev1.Volume) ([][]corev1.NodeSelectorRequirement, error) {
	name, ok := pods.ClaimName(p, vol)
	if !ok {
		return nil, nil
	}
	key := types.NamespacedName{Namespace: p.Namespace, Name: name}
	pvc := v.pvcs[key]
	switch {
	case pvc == nil && vol.Ephemeral != nil:
		// The claim is made once the pod is: until then its template names the class. Here
		// nodepilot departs from Karpenter, whose provisioner ignores the pod until the claim
		// exists (GetPersistentVolumeClaim in sigs.k8s.io/karpenter v1.14.3 fails on it): the claim
		// comes within moments, and the template already says where its volume may be made.
		class := ptr.Deref(vol.Ephemeral.VolumeClaimTemplate.Spec.StorageClassName, "")
		if class == "" {
			return nil, nil
		}
		return v.classTopology(key, class)
	case pvc == nil:
		return nil, volumeError("create the claim, or correct the pod's volumes", "its PersistentVolumeClaim %s does not exist", key)
	case pvc.DeletionTimestamp != nil:
		return nil, volumeError("give the pod a claim that is not being deleted", "its PersistentVolumeClaim %s is being deleted", key)
	case pvc.Status.Phase == corev1.ClaimLost:
		return nil, volumeError("restore the volume, or give the pod a new claim",
			"its PersistentVolumeClaim %s is Lost: PersistentVolume %s, which it was bound to, no longer exists", key, pvc.Spec.VolumeName)
	case pvc.Spec.VolumeName != "":
		return v.boundTopology(key, pvc)
	}
	class := ptr.Deref(pvc.Spec.StorageClassName, "")
	if class == "" {
		return nil, volumeError("name a StorageClass in the claim, or bind it to a PersistentVolume",
			"its PersistentVolumeClaim %s is not bound and names no StorageClass", key)
	}
	return v.classTopology(key, class)
}

// boundTopology is where the volume a claim names can be attached.
func (v *Volumes) boundTopology(key types.NamespacedName, pvc *corev1.PersistentVolumeClaim) ([][]corev1.NodeSelectorRequirement, error) {
	pv := v.pvs[pvc.Spec.VolumeName]
	switch {
	case pv == nil:
		return nil, volumeError("restore the volume, or give the pod a new claim",
			"its PersistentVolumeClaim %s is bound to PersistentVolume %s, which does not exist", key, pvc.Spec.VolumeName)
	case pv.DeletionTimestamp != nil:
		return nil, volumeError("give the pod a new claim",
			"its PersistentVolumeClaim %s is bound to PersistentVolume %s, which is being deleted", key, pv.Name)
	}
	// kube-scheduler counts a claim as bound only once the volume controller has completed the
	// binding, and Karpenter follows it.
	if _, done := pvc.Annotations[volumehelpers.AnnBindCompleted]; !done && !v.declared {
		return nil, volumeError("kube-controller-manager's volume controller completes it: check that it runs and that the volume's claimRef names this claim",
			"its PersistentVolumeClaim %s names PersistentVolume %s, but the binding is not complete (no %s annotation)", key, pv.Name, volumehelpers.AnnBindCompleted)
	}
	if a := pv.Spec.NodeAffinity; a != nil && a.Required != nil {
		return termsOf(pv, a.Required.NodeSelectorTerms), nil
	}
	return nil, nil
}

// classTopology is where a class may make the volume of a claim that is not bound yet.
func (v *Volumes) classTopology(key types.NamespacedName, class string) ([][]corev1.NodeSelectorRequirement, error) {
	sc := v.classes[class]
	switch {
	case sc == nil:
		return nil, volumeError("create the StorageClass, or correct the claim",
			"its PersistentVolumeClaim %s asks for StorageClass %s, which does not exist", key, class)
	case ptr.Deref(sc.VolumeBindingMode, "") == storagev1.VolumeBindingImmediate:
		// The volume is made, and its zone chosen, before the pod is placed.
		return nil, volumeError("wait for the volume to be made, or use a class with volumeBindingMode WaitForFirstConsumer",
			"its PersistentVolumeClaim %s is not bound yet, and StorageClass %s binds at once (Immediate), not for the pod", key, class)
	}
	terms := make([][]corev1.NodeSelectorRequirement, 0, len(sc.AllowedTopologies))
	for _, t := range sc.AllowedTopologies {
		var term []corev1.NodeSelectorRequirement
		for _, e := range t.MatchLabelExpressions {
			term = append(term, corev1.NodeSelectorRequirement{Key: e.Key, Operator: corev1.NodeSelectorOpIn, Values: e.Values})
		}
		if len(term) > 0 { // an empty term selects nothing, and Karpenter skips it
			terms = append(terms, term)
		}
	}
	return terms, nil
}

// termsOf lists a volume's node selector terms, as Karpenter reads them: a term without
// expressions selects no node and is skipped, and a local or host path volume's hostname is left
// out (its pod, moved, starts on a new node with a new volume of its own), so a term that named
// only the hostname allows every node.
func termsOf(pv *corev1.PersistentVolume, ts []corev1.NodeSelectorTerm) [][]corev1.NodeSelectorRequirement {
	local := pv.Spec.Local != nil || pv.Spec.HostPath != nil
	out := make([][]corev1.NodeSelectorRequirement, 0, len(ts))
	for _, t := range ts {
		exprs := t.MatchExpressions
		if len(exprs) == 0 {
			continue
		}
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
			claim, ok := pods.ClaimName(p, v)
			if !ok {
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
