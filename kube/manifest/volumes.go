package manifest

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// The annotations that mark a StorageClass the default, GA and beta, as the DefaultStorageClass
// admission plugin reads them.
const (
	defaultClassAnnotation     = "storageclass.kubernetes.io/is-default-class"
	defaultClassAnnotationBeta = "storageclass.beta.kubernetes.io/is-default-class"
)

func addPV(c *addContext, obj interface{}) {
	pv := obj.(*corev1.PersistentVolume)
	if c.fail(validateMeta(&pv.ObjectMeta, false)) || !c.claim("PersistentVolume", "", pv.Name) {
		return
	}
	setUID(&pv.ObjectMeta, "PersistentVolume")
	c.set.PVs = append(c.set.PVs, pv)
}

func addPVC(c *addContext, obj interface{}) {
	pvc := obj.(*corev1.PersistentVolumeClaim)
	if c.fail(validateMeta(&pvc.ObjectMeta, true)) || !c.claim("PersistentVolumeClaim", pvc.Namespace, pvc.Name) {
		return
	}
	setUID(&pvc.ObjectMeta, "PersistentVolumeClaim")
	c.set.PVCs = append(c.set.PVCs, pvc)
}

func addStorageClass(c *addContext, obj interface{}) {
	sc := obj.(*storagev1.StorageClass)
	errs := validateMeta(&sc.ObjectMeta, false)
	if m := sc.VolumeBindingMode; m != nil && *m != storagev1.VolumeBindingImmediate && *m != storagev1.VolumeBindingWaitForFirstConsumer {
		errs = append(errs, field.Invalid(field.NewPath("volumeBindingMode"), *m, fmt.Sprintf("%q is no binding mode: use Immediate or WaitForFirstConsumer", *m)))
	}
	for i, t := range sc.AllowedTopologies {
		for j, e := range t.MatchLabelExpressions {
			path := field.NewPath("allowedTopologies").Index(i).Child("matchLabelExpressions").Index(j)
			if e.Key == "" {
				errs = append(errs, field.Required(path.Child("key"), "a label key is required"))
			}
			if len(e.Values) == 0 {
				errs = append(errs, field.Required(path.Child("values"), "at least one value is required"))
			}
		}
	}
	if c.fail(errs) || !c.claim("StorageClass", "", sc.Name) {
		return
	}
	setUID(&sc.ObjectMeta, "StorageClass")
	c.set.StorageClasses = append(c.set.StorageClasses, sc)
}

// Claims are the PersistentVolumeClaims the manifests' pods would find once applied: the
// manifests' own, and those the StatefulSet controller makes for each pod from its
// volumeClaimTemplates (<template>-<pod>) that the manifests do not declare. A claim that names no
// StorageClass gets the default one, as the DefaultStorageClass admission plugin gives it, when
// the manifests mark one. Of several, the plugin takes the newest, then the first by name
// (GetDefaultClass in k8s.io/kubernetes v1.37.2, pkg/volume/util); manifests applied together are
// created within the same second, so the first by name.
func (s *Set) Claims() []*corev1.PersistentVolumeClaim {
	var def *string
	for _, sc := range s.StorageClasses {
		marked := sc.Annotations[defaultClassAnnotation] == "true" || sc.Annotations[defaultClassAnnotationBeta] == "true"
		if marked && (def == nil || sc.Name < *def) {
			def = ptr.To(sc.Name)
		}
	}
	withClass := func(pvc *corev1.PersistentVolumeClaim) *corev1.PersistentVolumeClaim {
		if pvc.Spec.StorageClassName != nil || def == nil {
			return pvc
		}
		pvc = pvc.DeepCopy()
		pvc.Spec.StorageClassName = def
		return pvc
	}
	declared := map[string]bool{}
	out := make([]*corev1.PersistentVolumeClaim, 0, len(s.PVCs))
	for _, pvc := range s.PVCs {
		declared[pvc.Namespace+"/"+pvc.Name] = true
		out = append(out, withClass(pvc))
	}
	for _, p := range s.Pods {
		owner := slices.IndexFunc(p.OwnerReferences, func(o metav1.OwnerReference) bool { return o.Kind == "StatefulSet" })
		if owner < 0 {
			continue
		}
		w := s.workload("StatefulSet", p.Namespace, p.OwnerReferences[owner].Name)
		if w == nil {
			continue
		}
		for _, t := range w.claims {
			name := claimOf(t.Name, p.Name)
			if declared[p.Namespace+"/"+name] {
				continue
			}
			pvc := &corev1.PersistentVolumeClaim{ObjectMeta: *t.ObjectMeta.DeepCopy(), Spec: *t.Spec.DeepCopy()}
			pvc.Name, pvc.Namespace = name, p.Namespace
			out = append(out, withClass(pvc))
		}
	}
	return out
}
