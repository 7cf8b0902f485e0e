package aws

import (
	"context"
	"fmt"
	"slices"
	"sync"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// subnet is a subnet an EC2NodeClass selects.
type subnet struct {
	ID, Zone, ZoneID string
	FreeIPs          int64
}

// subnets resolves an EC2NodeClass's subnetSelectorTerms: one DescribeSubnets per term (terms
// are ORed; the id and tags of one term ANDed), cached for the selector TTL. The result is
// sorted by id.
func (p *Provider) subnets(ctx context.Context, nc *awsv1.EC2NodeClass) ([]subnet, error) {
	key := cacheKey(nc.Spec.SubnetSelectorTerms)
	if cached, ok := p.subnetCache.get(key); ok {
		return cached, nil
	}
	terms := make([][]ec2types.Filter, len(nc.Spec.SubnetSelectorTerms))
	for i, term := range nc.Spec.SubnetSelectorTerms {
		terms[i] = tagFilters(term.Tags)
		if term.ID != "" {
			terms[i] = append(terms[i], filter("subnet-id", term.ID))
		}
	}
	out, err := selectByTerms(ctx, "subnetSelectorTerms", terms, p.describeSubnets, func(s subnet) string { return s.ID })
	if err != nil {
		return nil, fmt.Errorf("ec2nodeclass %q: %w", nc.Name, err)
	}
	p.subnetCache.set(key, out)
	p.inflight.reset(out)
	return out, nil
}

// describeSubnets lists the available subnets that filters select.
func (p *Provider) describeSubnets(ctx context.Context, filters []ec2types.Filter) ([]subnet, error) {
	var out []subnet
	pages := ec2.NewDescribeSubnetsPaginator(p.clients.EC2, &ec2.DescribeSubnetsInput{Filters: filters})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("ec2 DescribeSubnets: %w", err)
		}
		for _, s := range page.Subnets {
			if s.State != "" && s.State != ec2types.SubnetStateAvailable {
				continue
			}
			out = append(out, subnet{ID: sdkaws.ToString(s.SubnetId), Zone: sdkaws.ToString(s.AvailabilityZone),
				ZoneID: sdkaws.ToString(s.AvailabilityZoneId), FreeIPs: int64(sdkaws.ToInt32(s.AvailableIpAddressCount))})
		}
	}
	return out, nil
}

// zonalSubnets picks one subnet per zone: the one with the most free addresses after the
// launches in flight, the lowest id among equals.
func zonalSubnets(subnets []subnet, inflight *inflightIPs) map[string]subnet {
	out := map[string]subnet{}
	for _, s := range subnets {
		s.FreeIPs -= inflight.get(s.ID)
		best, ok := out[s.Zone]
		if !ok || s.FreeIPs > best.FreeIPs || (s.FreeIPs == best.FreeIPs && s.ID < best.ID) {
			out[s.Zone] = s
		}
	}
	return out
}

// zonesOf lists the distinct zones of the subnets, sorted.
func zonesOf(subnets []subnet) []string {
	zones := make([]string, 0, len(subnets))
	for _, s := range subnets {
		zones = append(zones, s.Zone)
	}
	slices.Sort(zones)
	return slices.Compact(zones)
}

// inflightIPs counts the addresses launches took from each subnet since the subnets were last
// described, so that back-to-back launches spread over equal subnets.
type inflightIPs struct {
	mu    sync.Mutex
	taken map[string]int64
}

func (f *inflightIPs) get(id string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.taken[id]
}

func (f *inflightIPs) take(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.taken == nil {
		f.taken = map[string]int64{}
	}
	f.taken[id]++
}

// reset forgets the launches into these subnets: their free counts are fresh.
func (f *inflightIPs) reset(subnets []subnet) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range subnets {
		delete(f.taken, s.ID)
	}
}
