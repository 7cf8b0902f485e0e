package scheduling

import (
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Reasons of the pods the provisioner ignores, as Karpenter's does: it plans nothing for them.
const (
	// ReasonIgnored: the pod's node selector or required node affinity cannot be honoured
	// (matchFields, a label Karpenter reserves, an invalid operator or value).
	ReasonIgnored = "Ignored"
	// ReasonNotForKarpenter: the pod asks for a node without karpenter.sh/nodepool, so no node
	// Karpenter launches; Karpenter says nothing to it.
	ReasonNotForKarpenter = "NotForKarpenter"
)

// errNotForKarpenter is why a pod that wants no Karpenter node is ignored, in Karpenter's words.
var errNotForKarpenter = fmt.Errorf("configured to not run on a Karpenter provisioned node (requirement %s %s)",
	karpv1.NodePoolLabelKey, corev1.NodeSelectorOpDoesNotExist)

// ignoredBecause says why Karpenter's provisioner ignores a pending pod, or nil: its node
// selector or a term of its required node affinity uses matchFields, a restricted label, an
// unknown operator or an invalid value, or it asks that karpenter.sh/nodepool not exist.
func ignoredBecause(p *corev1.Pod) error {
	var terms []corev1.NodeSelectorTerm
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		terms = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	}
	for _, t := range terms {
		for _, r := range t.MatchExpressions {
			if r.Key == karpv1.NodePoolLabelKey && r.Operator == corev1.NodeSelectorOpDoesNotExist {
				return errNotForKarpenter
			}
		}
	}
	var errs []error
	for key, value := range p.Spec.NodeSelector {
		errs = append(errs, requirementError(corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: []string{value}}))
	}
	for _, t := range terms {
		if len(t.MatchFields) > 0 {
			errs = append(errs, errors.New("node selector term with matchFields is not supported"))
		}
		for _, r := range t.MatchExpressions {
			errs = append(errs, requirementError(r))
		}
	}
	return errors.Join(errs...)
}

// requirementError says what makes a pod's requirement one Karpenter refuses, or nil.
func requirementError(r corev1.NodeSelectorRequirement) error {
	key := r.Key
	if normalized, ok := karpv1.NormalizedLabels()[key]; ok {
		key = normalized
	}
	problems := karpv1.RequirementProblems(karpv1.NodeSelectorRequirementWithMinValues{Key: key, Operator: r.Operator, Values: r.Values}, false)
	for _, v := range r.Values {
		if msgs := validation.IsValidLabelValue(v); len(msgs) > 0 {
			problems = append(problems, fmt.Sprintf("value %q of key %s is not a label value: %s", v, r.Key, strings.Join(msgs, "; ")))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("requirement %s %s %v: %s", r.Key, r.Operator, r.Values, strings.Join(problems, "; "))
}
