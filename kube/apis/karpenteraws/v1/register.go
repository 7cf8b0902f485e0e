package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group is the API group of EC2NodeClass.
const Group = "karpenter.k8s.aws"

// Version is the API version of this package's types.
const Version = "v1"

// SchemeGroupVersion is karpenter.k8s.aws/v1. Treat it as a constant.
var SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}

// KindEC2NodeClass is the kind of EC2NodeClass.
const KindEC2NodeClass = "EC2NodeClass"

// EC2NodeClassGroupKind is EC2NodeClass's group and kind: the node class NodePools reference on AWS.
func EC2NodeClassGroupKind() schema.GroupKind {
	return SchemeGroupVersion.WithKind(KindEC2NodeClass).GroupKind()
}

// AddToScheme registers EC2NodeClass and EC2NodeClassList with s.
func AddToScheme(s *runtime.Scheme) error {
	builder := runtime.NewSchemeBuilder(addKnownTypes)
	return builder.AddToScheme(s)
}

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(SchemeGroupVersion, &EC2NodeClass{}, &EC2NodeClassList{})
	metav1.AddToGroupVersion(s, SchemeGroupVersion)
	return nil
}
