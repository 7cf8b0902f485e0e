package state

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/types"
)

// UpdateVolumeAttachment stores a VolumeAttachment.
func (c *Cluster) UpdateVolumeAttachment(va *storagev1.VolumeAttachment) {
	update(c, c.attachments, va.Name, va)
}

// DeleteVolumeAttachment forgets a VolumeAttachment.
func (c *Cluster) DeleteVolumeAttachment(name string) { remove(c, c.attachments, name) }

// UpdatePVC stores a PersistentVolumeClaim.
func (c *Cluster) UpdatePVC(pvc *corev1.PersistentVolumeClaim) {
	update(c, c.pvcs, types.NamespacedName{Namespace: pvc.Namespace, Name: pvc.Name}, pvc)
}

// DeletePVC forgets a PersistentVolumeClaim.
func (c *Cluster) DeletePVC(key types.NamespacedName) { remove(c, c.pvcs, key) }

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
