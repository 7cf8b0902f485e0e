package v1

import (
	"reflect"
	"strconv"

	"github.com/mitchellh/hashstructure/v2"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodePoolHashVersion is the version of Hash's scheme, written next to the hash in the
// karpenter.sh/nodepool-hash-version annotation: Karpenter v1.14's, since Hash computes
// Karpenter's hash. A NodeClaim of another version is re-hashed instead of taken for drifted.
const NodePoolHashVersion = "v3"

// hashOptions are the options of Karpenter's hashes: lists are sets, and zero and nil values
// count as absent, so that adding an unset field to the API changes no hash. They are new on
// every call: hashstructure stores its hasher in the options it is given, so options shared
// between goroutines would mix concurrent hashes.
func hashOptions() *hashstructure.HashOptions {
	return &hashstructure.HashOptions{SlicesAsSets: true, IgnoreZeroValue: true, ZeroNil: true}
}

// Hash returns the karpenter.sh/nodepool-hash of a NodePool, equal to Karpenter's (the fidelity
// tests compare them): hashstructure's FormatV2 of the template, the fields tagged hash:"ignore"
// (requirements, whose drift is found from the node's labels) left out. The hash depends on
// the Go names and types of the template's fields, which are therefore Karpenter's.
func Hash(np *NodePool) string {
	return HashStructure(np.Spec.Template)
}

// Rehash gives a NodeClaim hashed under another scheme the current hash and scheme under the
// given annotation keys, as Karpenter's hash controllers do: its drift cannot be told from the
// old hash, and afterwards it can. A drifted NodeClaim keeps its old hash, so it stays drifted.
func Rehash(nc *NodeClaim, hashKey, hash, versionKey, version string) {
	metav1.SetMetaDataAnnotation(&nc.ObjectMeta, versionKey, version)
	if meta.FindStatusCondition(nc.Status.Conditions, ConditionTypeDrifted) == nil {
		metav1.SetMetaDataAnnotation(&nc.ObjectMeta, hashKey, hash)
	}
}

// HashStructure is Karpenter's hash of v, in decimal.
func HashStructure(v interface{}) string {
	h, err := hashstructure.Hash(v, hashstructure.FormatV2, hashOptions())
	if err != nil {
		// The inputs are API structs of strings, numbers, maps and slices, which always hash.
		panic("hashing: " + err.Error())
	}
	return strconv.FormatUint(h, 10)
}

// HashInclude leaves an expireAfter of Never out of Hash, as Karpenter's hash does: its type
// holds Never as its zero value, which the hash skips, where ours marks it.
func (in NodeClaimTemplateSpec) HashInclude(field string, v interface{}) (bool, error) {
	if d, ok := v.(reflect.Value); ok && field == "ExpireAfter" {
		return d.Interface().(NillableDuration).Duration != nil, nil
	}
	return true, nil
}
