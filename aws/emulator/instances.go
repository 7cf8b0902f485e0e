package emulator

import (
	"cmp"
	"fmt"
	"time"
)

// Instance is what the local control plane's node registrar needs to know about an instance.
type Instance struct {
	ID           string
	InstanceType string
	Zone         string
	Region       string
	// CapacityType is spot or on-demand.
	CapacityType string
	// State is pending, running, shutting-down, terminated, stopping or stopped.
	State string
	// Arch uses Kubernetes' spelling: amd64 or arm64.
	Arch           string
	ImageID        string
	SubnetID       string
	PrivateIP      string
	PrivateDNSName string
	LaunchTime     time.Time
	Tags           map[string]string
	// Tenancy is default (shared) or dedicated, from the launch template's placement.
	Tenancy string
}

// Instances lists every instance still visible (terminated ones for TerminatedRetention),
// by launch time.
func (e *Emulator) Instances() []Instance {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advance()
	var out []Instance
	for _, inst := range e.sortedInstances(nil) {
		tags := make(map[string]string, len(inst.Tags))
		for k, v := range inst.Tags {
			tags[k] = v
		}
		arch := "amd64"
		if inst.Arch == "arm64" {
			arch = "arm64"
		}
		out = append(out, Instance{
			ID: inst.ID, InstanceType: inst.Type, Zone: inst.Zone, Region: e.cfg.Region, CapacityType: inst.CapacityType,
			State: inst.State, Arch: arch, ImageID: inst.ImageID, SubnetID: inst.SubnetID, PrivateIP: inst.PrivateIP.String(),
			PrivateDNSName: inst.PrivateDNS, LaunchTime: inst.LaunchTime, Tags: tags, Tenancy: cmp.Or(inst.Template.Tenancy, "default"),
		})
	}
	return out
}

// SetFreeAddresses sets a subnet's free address count (0 makes CreateFleet report
// InsufficientFreeAddressesInSubnet for it).
func (e *Emulator) SetFreeAddresses(subnetID string, n int) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.world.subnetByID(subnetID)
	if s == nil {
		return fmt.Errorf("set free addresses: subnet %q does not exist", subnetID)
	}
	if n < 0 {
		return fmt.Errorf("set free addresses of %q: %d must not be negative", subnetID, n)
	}
	s.Free = n
	return nil
}

// Subnets lists the subnets (id, zone, zone id, free addresses, tags), in zone order.
func (e *Emulator) Subnets() []Subnet {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Subnet
	for _, s := range e.world.subnets {
		tags := map[string]string{}
		for k, v := range s.Tags {
			tags[k] = v
		}
		out = append(out, Subnet{ID: s.ID, Zone: s.Zone, ZoneID: s.ZoneID, FreeAddresses: s.Free, Tags: tags})
	}
	return out
}

// Subnet describes one emulated subnet.
type Subnet struct {
	ID, Zone, ZoneID string
	FreeAddresses    int
	Tags             map[string]string
}
