package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group is the API group of NodePool and NodeClaim.
const Group = "karpenter.sh"

// Version is the API version of this package's types.
const Version = "v1"

// SchemeGroupVersion is karpenter.sh/v1. Treat it as a constant.
var SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}

// Kinds of this group.
const (
	KindNodePool  = "NodePool"
	KindNodeClaim = "NodeClaim"
)

// AddToScheme registers NodePool, NodeClaim and their lists with s.
func AddToScheme(s *runtime.Scheme) error {
	builder := runtime.NewSchemeBuilder(addKnownTypes)
	return builder.AddToScheme(s)
}

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(SchemeGroupVersion, &NodePool{}, &NodePoolList{}, &NodeClaim{}, &NodeClaimList{})
	metav1.AddToGroupVersion(s, SchemeGroupVersion)
	return nil
}
