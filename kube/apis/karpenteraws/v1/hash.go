package v1

import (
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// EC2NodeClassHashVersion is the version of Hash's scheme, written next to the hash in the
// karpenter.k8s.aws/ec2nodeclass-hash-version annotation: Karpenter v1.14's, since Hash
// computes Karpenter's hash.
const EC2NodeClassHashVersion = "v5"

// Hash returns the karpenter.k8s.aws/ec2nodeclass-hash of an EC2NodeClass for a cluster whose
// CA bundle is caBundle (base64, as in a kubeconfig), equal to Karpenter's: the spec without
// the fields tagged hash:"ignore" (the selector terms, whose drift is found from the resolved
// subnets, security groups and AMIs), the AMI family in effect, and the CA bundle.
func Hash(nc *EC2NodeClass, caBundle string) string {
	return karpv1.HashStructure([]interface{}{nc.Spec, nc.AMIFamily(), caBundle})
}
