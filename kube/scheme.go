package kube

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// NewScheme returns a scheme holding the built-in Kubernetes types, karpenter.sh/v1 and
// karpenter.k8s.aws/v1: what the CRD client decodes with, and what events use to name the kind
// of the object they are about.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, group := range []struct {
		name string
		add  func(*runtime.Scheme) error
	}{
		{"built-in", clientgoscheme.AddToScheme},
		{karpv1.Group, karpv1.AddToScheme},
		{awsv1.Group, awsv1.AddToScheme},
	} {
		if err := group.add(s); err != nil {
			return nil, fmt.Errorf("scheme: add the %s types: %w", group.name, err)
		}
	}
	return s, nil
}
