package v1

import (
	"encoding/json"
	"hash/fnv"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// NodePoolHashVersion is the version of Hash's scheme, written next to the hash in the
// karpenter.sh/nodepool-hash-version annotation. Bump it when the hashed fields or their
// encoding change. It differs from Karpenter's versions on purpose: Hash's digits differ from
// Karpenter's, and a different version makes either side re-hash a NodeClaim the other
// launched instead of taking it for drifted.
const NodePoolHashVersion = "nodepilot-v1"

// nodePoolHashInput is what Hash covers: the template fields whose change makes a node drift.
// Requirements are left out (drift on them is checked against the node's labels instead), as
// are everything outside the template (disruption, limits, weight).
type nodePoolHashInput struct {
	Labels                 map[string]string   `json:"labels,omitempty"`
	Annotations            map[string]string   `json:"annotations,omitempty"`
	Taints                 []corev1.Taint      `json:"taints,omitempty"`
	StartupTaints          []corev1.Taint      `json:"startupTaints,omitempty"`
	NodeClassRef           *NodeClassReference `json:"nodeClassRef,omitempty"`
	ExpireAfter            string              `json:"expireAfter,omitempty"`
	TerminationGracePeriod string              `json:"terminationGracePeriod,omitempty"`
}

// Hash returns the karpenter.sh/nodepool-hash of a NodePool: a decimal FNV-1a digest of a
// canonical JSON encoding of its template's labels, annotations, taints, startup taints (as
// sets), nodeClassRef, expireAfter and terminationGracePeriod. It changes exactly when one of
// those does.
func Hash(np *NodePool) string {
	t := np.Spec.Template
	input := nodePoolHashInput{
		Labels:        t.Labels,
		Annotations:   t.Annotations,
		Taints:        sortedTaints(t.Spec.Taints),
		StartupTaints: sortedTaints(t.Spec.StartupTaints),
		NodeClassRef:  t.Spec.NodeClassRef,
		ExpireAfter:   t.Spec.ExpireAfter.canonical(),
	}
	if t.Spec.TerminationGracePeriod != nil {
		input.TerminationGracePeriod = t.Spec.TerminationGracePeriod.Duration.String()
	}
	return digest(input)
}

// sortedTaints returns a sorted copy of taints, so that their order does not change the hash.
func sortedTaints(taints []corev1.Taint) []corev1.Taint {
	if len(taints) == 0 {
		return nil
	}
	sorted := append([]corev1.Taint(nil), taints...)
	sort.Slice(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.Key != b.Key {
			return a.Key < b.Key
		}
		if a.Effect != b.Effect {
			return a.Effect < b.Effect
		}
		return a.Value < b.Value
	})
	return sorted
}

// digest returns the decimal FNV-1a 64 hash of v's JSON encoding (maps encode with sorted keys).
func digest(v interface{}) string {
	data, err := json.Marshal(v)
	if err != nil {
		// The inputs are plain strings, maps and API structs, which always encode.
		panic("encoding hash input: " + err.Error())
	}
	h := fnv.New64a()
	_, _ = h.Write(data)
	return strconv.FormatUint(h.Sum64(), 10)
}
