package v1

import (
	"encoding/json"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
)

// EC2NodeClassHashVersion is the version of Hash's scheme, written next to the hash in the
// karpenter.k8s.aws/ec2nodeclass-hash-version annotation. Bump it when the hashed fields or
// their encoding change. It differs from Karpenter's versions on purpose: Hash's digits differ
// from Karpenter's, and a different version makes either side re-hash instead of finding drift.
const EC2NodeClassHashVersion = "nodepilot-v1"

// Hash returns the karpenter.k8s.aws/ec2nodeclass-hash of an EC2NodeClass: a decimal FNV-1a
// digest of a canonical JSON encoding of its spec without the selector terms (whose drift is
// found from the resolved subnets, security groups and AMIs instead), with the AMI family in
// effect instead of spec.amiFamily and with lists that are sets (block device mappings, cluster
// DNS) sorted. It changes exactly when one of the hashed fields does.
func Hash(nc *EC2NodeClass) string {
	spec := nc.Spec.DeepCopy()
	spec.SubnetSelectorTerms = nil
	spec.SecurityGroupSelectorTerms = nil
	spec.CapacityReservationSelectorTerms = nil
	spec.AMISelectorTerms = nil
	spec.AMIFamily = ptr(nc.AMIFamily())
	spec.BlockDeviceMappings = sortedByJSON(spec.BlockDeviceMappings)
	if spec.Kubelet != nil {
		slices.Sort(spec.Kubelet.ClusterDNS)
	}
	return digest(spec)
}

// sortedByJSON returns a copy of items ordered by their JSON encoding.
func sortedByJSON[T any](items []T) []T {
	sorted := slices.Clone(items)
	slices.SortStableFunc(sorted, func(a, b T) int {
		return strings.Compare(jsonString(a), jsonString(b))
	})
	return sorted
}

func jsonString(v interface{}) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// digest returns the decimal FNV-1a 64 hash of v's JSON encoding (maps encode with sorted keys).
func digest(v interface{}) string {
	data, err := json.Marshal(v)
	if err != nil {
		// The input is an API struct of strings, numbers and quantities, which always encodes.
		panic("encoding hash input: " + err.Error())
	}
	h := fnv.New64a()
	_, _ = h.Write(data)
	return strconv.FormatUint(h.Sum64(), 10)
}
