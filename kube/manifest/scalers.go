package manifest

import (
	"encoding/json"
	"fmt"
	"slices"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Scaler is a HorizontalPodAutoscaler or a KEDA ScaledObject: the workload it scales, in its own
// namespace, and between how many replicas.
type Scaler struct {
	Kind, Namespace, Name  string
	TargetKind, TargetName string
	Min, Max               int32
	// at is where it is defined (file and document), for notes.
	at string
}

func (s Scaler) String() string { return s.at + ": " + objectName(s.Kind, s.Namespace, s.Name) }

func addHPA(c *addContext, obj interface{}) {
	hpa := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	spec := &hpa.Spec
	errs := validateMeta(&hpa.ObjectMeta, true)
	target := field.NewPath("spec", "scaleTargetRef")
	errs = append(errs, validateTarget(spec.ScaleTargetRef.Kind, spec.ScaleTargetRef.Name, target)...)
	// As the API server of Kubernetes 1.37 (its autoscaling validation, HPAScaleToZero on by
	// default): the target's apiVersion names a group; minReplicas defaults to 1 and may be 0
	// only with an Object or External metric; maxReplicas is set, at least 1 and at least
	// minReplicas.
	if gv, err := schema.ParseGroupVersion(spec.ScaleTargetRef.APIVersion); err != nil {
		errs = append(errs, field.Invalid(target.Child("apiVersion"), spec.ScaleTargetRef.APIVersion, err.Error()))
	} else if gv.Group == "" {
		errs = append(errs, field.Invalid(target.Child("apiVersion"), spec.ScaleTargetRef.APIVersion, "apiVersion must specify API group, such as apps/v1"))
	}
	low := int32(1)
	if spec.MinReplicas != nil {
		low = *spec.MinReplicas
		if low < 0 {
			errs = append(errs, field.Invalid(field.NewPath("spec", "minReplicas"), low, "must be greater than or equal to 0"))
		}
		if low == 0 && !slices.ContainsFunc(spec.Metrics, func(m autoscalingv2.MetricSpec) bool {
			return m.Type == autoscalingv2.ObjectMetricSourceType || m.Type == autoscalingv2.ExternalMetricSourceType
		}) {
			errs = append(errs, field.Forbidden(field.NewPath("spec", "metrics"), "must specify at least one Object or External metric to support scaling to zero replicas"))
		}
	}
	switch path := field.NewPath("spec", "maxReplicas"); {
	case spec.MaxReplicas == 0:
		errs = append(errs, field.Required(path, "must be set and greater than 0"))
	case spec.MaxReplicas < 0:
		errs = append(errs, field.Invalid(path, spec.MaxReplicas, "must be greater than or equal to 1"))
	case spec.MinReplicas != nil && spec.MaxReplicas < low:
		errs = append(errs, field.Invalid(path, spec.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	if c.fail(errs) || !c.claim("HorizontalPodAutoscaler", hpa.Namespace, hpa.Name) {
		return
	}
	c.set.Scalers = append(c.set.Scalers, Scaler{Kind: "HorizontalPodAutoscaler", Namespace: hpa.Namespace, Name: hpa.Name,
		TargetKind: spec.ScaleTargetRef.Kind, TargetName: spec.ScaleTargetRef.Name, Min: low, Max: spec.MaxReplicas, at: c.at()})
}

// ScaledObject is KEDA's keda.sh/v1alpha1 ScaledObject, every field of its spec named so that a
// misspelt one is reported; planning reads the target and the replica bounds.
type ScaledObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ScaledObjectSpec `json:"spec"`
	Status            json.RawMessage  `json:"status,omitempty"`
}

// ScaledObjectSpec is a ScaledObject's spec.
type ScaledObjectSpec struct {
	ScaleTargetRef        *ScaleTarget      `json:"scaleTargetRef"`
	PollingInterval       *int32            `json:"pollingInterval,omitempty"`
	InitialCooldownPeriod *int32            `json:"initialCooldownPeriod,omitempty"`
	CooldownPeriod        *int32            `json:"cooldownPeriod,omitempty"`
	IdleReplicaCount      *int32            `json:"idleReplicaCount,omitempty"`
	MinReplicaCount       *int32            `json:"minReplicaCount,omitempty"`
	MaxReplicaCount       *int32            `json:"maxReplicaCount,omitempty"`
	Advanced              json.RawMessage   `json:"advanced,omitempty"`
	Triggers              []json.RawMessage `json:"triggers"`
	Fallback              json.RawMessage   `json:"fallback,omitempty"`
}

// ScaleTarget is the workload a ScaledObject scales (KEDA defaults to an apps/v1 Deployment).
type ScaleTarget struct {
	Name                   string `json:"name"`
	APIVersion             string `json:"apiVersion,omitempty"`
	Kind                   string `json:"kind,omitempty"`
	EnvSourceContainerName string `json:"envSourceContainerName,omitempty"`
}

// KEDA's defaults for a ScaledObject's replica bounds.
const (
	kedaDefaultMin = 0
	kedaDefaultMax = 100
)

func addScaledObject(c *addContext, obj interface{}) {
	so := obj.(*ScaledObject)
	spec := &so.Spec
	errs := validateMeta(&so.ObjectMeta, true)
	target := field.NewPath("spec", "scaleTargetRef")
	kind := "Deployment"
	if spec.ScaleTargetRef == nil {
		errs = append(errs, field.Required(target, "the workload to scale"))
	} else {
		if spec.ScaleTargetRef.Kind != "" {
			kind = spec.ScaleTargetRef.Kind
		}
		errs = append(errs, validateTarget(kind, spec.ScaleTargetRef.Name, target)...)
	}
	if len(spec.Triggers) == 0 {
		errs = append(errs, field.Required(field.NewPath("spec", "triggers"), "KEDA needs at least one trigger"))
	}
	low, high := int32(kedaDefaultMin), int32(kedaDefaultMax)
	if spec.MinReplicaCount != nil {
		low = *spec.MinReplicaCount
	}
	if spec.MaxReplicaCount != nil {
		high = *spec.MaxReplicaCount
	}
	// KEDA reads a negative minimum as its HPA's minimum of 1; a plan refuses it instead.
	if low < 0 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "minReplicaCount"), low, "must be 0 or more"))
	}
	// As KEDA's webhook (CheckReplicaCountBoundsAreValid): a minimum that is set counts as at
	// least 1, the HPA's; it may not pass the maximum, and an idle count must be below it.
	hpaLow := int32(0)
	if spec.MinReplicaCount != nil {
		hpaLow = max(low, 1)
	}
	if hpaLow > high {
		errs = append(errs, field.Invalid(field.NewPath("spec", "maxReplicaCount"), high, fmt.Sprintf("must be at least minReplicaCount (%d)", hpaLow)))
	}
	if spec.IdleReplicaCount != nil && *spec.IdleReplicaCount >= hpaLow {
		errs = append(errs, field.Invalid(field.NewPath("spec", "idleReplicaCount"), *spec.IdleReplicaCount, fmt.Sprintf("must be below minReplicaCount (%d)", hpaLow)))
	}
	if c.fail(errs) || !c.claim("ScaledObject", so.Namespace, so.Name) {
		return
	}
	c.set.Scalers = append(c.set.Scalers, Scaler{Kind: "ScaledObject", Namespace: so.Namespace, Name: so.Name,
		TargetKind: kind, TargetName: spec.ScaleTargetRef.Name, Min: low, Max: high, at: c.at()})
}

func validateTarget(kind, name string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if kind == "" {
		errs = append(errs, field.Required(path.Child("kind"), "the kind of the workload to scale, such as Deployment"))
	}
	if name == "" {
		errs = append(errs, field.Required(path.Child("name"), "the name of the workload to scale"))
	}
	return errs
}

// Scaled is the set as it would run with its scalers: at each scaled workload's replicas as
// written, or at the scaler's maximum when atMax. Every scaler gets a note saying what was
// planned; a target the manifests do not define is noted and left alone.
func (s *Set) Scaled(atMax bool) (*Set, error) {
	out := *s
	out.Notes = slices.Clone(s.Notes)
	counts := map[*Workload]int32{}
	for _, sc := range s.Scalers {
		w := s.workload(sc.TargetKind, sc.Namespace, sc.TargetName)
		switch {
		case w == nil:
			out.Notes = append(out.Notes, fmt.Sprintf("%s scales %s %s/%s, which these manifests do not define: nothing is planned for it",
				sc, sc.TargetKind, sc.Namespace, sc.TargetName))
			continue
		case w.Kind == "Job":
			out.Notes = append(out.Notes, fmt.Sprintf("%s scales %s, which has no scale subresource: nothing is planned for it", sc, w))
			continue
		case !atMax:
			out.Notes = append(out.Notes, fmt.Sprintf("%s scales %s between %d and %d replicas: planned at the %d it has (--at-max plans %d)",
				sc, w, sc.Min, sc.Max, w.Replicas, sc.Max))
			continue
		}
		if n, twice := counts[w]; twice {
			out.Notes = append(out.Notes, fmt.Sprintf("%s also scales %s: planned at the larger maximum", sc, w))
			counts[w] = max(n, sc.Max)
			continue
		}
		counts[w] = sc.Max
		out.Notes = append(out.Notes, fmt.Sprintf("%s scales %s between %d and %d replicas: planned at its maximum, %d (it has %d)",
			sc, w, sc.Min, sc.Max, sc.Max, w.Replicas))
	}
	if len(counts) == 0 {
		return &out, nil
	}
	names := map[string]bool{}
	total := len(s.Pods)
	for _, p := range s.Pods {
		names[p.Namespace+"/"+p.Name] = true
	}
	scaled := map[types.UID]bool{}
	for w, n := range counts {
		total += int(n) - int(w.Replicas)
		scaled[w.uid] = true
	}
	if total > maxPods {
		return nil, fmt.Errorf("at their scalers' maximums the workloads would make %d pods; one plan holds %d: lower a maxReplicas or plan without --at-max", total, maxPods)
	}
	out.Pods = nil
	for _, p := range s.Pods {
		if ref := metav1.GetControllerOf(p); ref == nil || !scaled[ref.UID] {
			out.Pods = append(out.Pods, p)
		}
	}
	for _, w := range s.Workloads {
		n, scaled := counts[w]
		if !scaled {
			continue
		}
		for i := range n {
			p := w.pod(i)
			if i >= w.Replicas && names[p.Namespace+"/"+p.Name] {
				return nil, fmt.Errorf("%s at %d replicas would make pod %s/%s, which the manifests already define", w, n, p.Namespace, p.Name)
			}
			out.Pods = append(out.Pods, p)
		}
	}
	return &out, nil
}
