package demo

import (
	"context"
	"maps"

	"github.com/nodepilot/nodepilot/aws/catalog"
	"github.com/nodepilot/nodepilot/aws/emulator"
	"github.com/nodepilot/nodepilot/aws/instancetype"
	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	"github.com/nodepilot/nodepilot/kube/localcluster"
)

// instances tells the local control plane's node registrar which emulated machines run, with
// what a kubelet on each would report: the instance type's labels and capacity (the AL2023
// defaults), and the NodePool the machine was launched for.
type instances struct {
	emu   *emulator.Emulator
	types map[string]catalog.Entry
}

func newInstances(emu *emulator.Emulator, cat *catalog.Catalog) *instances {
	types := map[string]catalog.Entry{}
	for _, e := range cat.Entries {
		types[e.Name] = e
	}
	return &instances{emu: emu, types: types}
}

// Running implements localcluster.Instances.
func (in *instances) Running(context.Context) ([]localcluster.Instance, error) {
	var out []localcluster.Instance
	for _, i := range in.emu.Instances() {
		entry, ok := in.types[i.InstanceType]
		if i.State != "running" || !ok {
			continue
		}
		it := instancetype.New(entry.Info, cloudprovider.Offerings{{Zone: i.Zone, CapacityType: i.CapacityType}}, instancetype.Options{})
		labels := instancetype.Labels(entry.Info)
		if pool := i.Tags[karpv1.NodePoolLabelKey]; pool != "" {
			labels[karpv1.NodePoolLabelKey] = pool
		}
		out = append(out, localcluster.Instance{
			ID: i.ID, Zone: i.Zone, Region: i.Region, InstanceType: i.InstanceType, CapacityType: i.CapacityType,
			Arch: i.Arch, OS: "linux", Labels: maps.Clone(labels),
			Capacity: it.Capacity, Allocatable: it.Allocatable(), LaunchedAt: i.LaunchTime,
		})
	}
	return out, nil
}
