package enginetest

import (
	_ "embed" // for defaultTypes
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/requirements"
)

// Zones are the zones of DefaultInstanceTypes.
func Zones() []string { return []string{"us-east-1a", "us-east-1b", "us-east-1c"} }

// DefaultInstanceTypesFile holds the default types as data, written from the embedded catalog by
// go test ./aws/awstest -update, which also checks that they are still the catalog's: the harness
// needs no cloud provider to have them.
const DefaultInstanceTypesFile = "defaulttypes.json"

//go:embed defaulttypes.json
var defaultTypes []byte

// instanceTypeRecord is an instance type as data.
type instanceTypeRecord struct {
	Name         string
	Requirements []corev1.NodeSelectorRequirement
	Offerings    cloudprovider.Offerings
	Capacity     corev1.ResourceList
	Overhead     cloudprovider.Overhead
}

// MarshalInstanceTypes writes types as DefaultInstanceTypesFile stores them.
func MarshalInstanceTypes(types []*cloudprovider.InstanceType) ([]byte, error) {
	records := make([]instanceTypeRecord, len(types))
	for i, it := range types {
		records[i] = instanceTypeRecord{Name: it.Name, Offerings: it.Offerings, Capacity: it.Capacity, Overhead: it.Overhead}
		for _, r := range it.Requirements.Items() {
			records[i].Requirements = append(records[i].Requirements, r.NodeSelector()...)
		}
	}
	data, err := json.MarshalIndent(records, "", " ")
	return append(data, '\n'), err
}

// DefaultInstanceTypes returns twelve common types of the embedded catalog (c5, m5 and r5 on
// amd64, m6g and c6g on arm64, large to 4xlarge), each offered on-demand at its list price and
// as spot at the catalog's synthetic spot price in the three Zones, with the capacity and
// overhead the EC2 provider computes. The list is new on each call and always the same.
func DefaultInstanceTypes() []*cloudprovider.InstanceType {
	var records []instanceTypeRecord
	if err := json.Unmarshal(defaultTypes, &records); err != nil {
		// The file is the harness's own, checked by a test: broken, no engine test can run.
		panic(fmt.Sprintf("enginetest: %s: %v (write it again: go test ./aws/awstest -update)", DefaultInstanceTypesFile, err))
	}
	out := make([]*cloudprovider.InstanceType, len(records))
	for i, r := range records {
		out[i] = &cloudprovider.InstanceType{Name: r.Name, Requirements: requirements.FromNodeSelector(r.Requirements),
			Offerings: r.Offerings, Capacity: r.Capacity, Overhead: r.Overhead}
	}
	return out
}
