package aws

import (
	"context"
	"fmt"
	"slices"
	"strings"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// securityGroup is a security group an EC2NodeClass selects.
type securityGroup struct {
	ID, Name string
}

// securityGroups resolves an EC2NodeClass's securityGroupSelectorTerms: one
// DescribeSecurityGroups per term (terms ORed; id, name and tags of one term ANDed), cached for
// the selector TTL. The result is sorted by id.
func (p *Provider) securityGroups(ctx context.Context, nc *awsv1.EC2NodeClass) ([]securityGroup, error) {
	key := cacheKey(nc.Spec.SecurityGroupSelectorTerms)
	if cached, ok := p.securityGroupCache.get(key); ok {
		return cached, nil
	}
	byID := map[string]securityGroup{}
	for i, term := range nc.Spec.SecurityGroupSelectorTerms {
		filters := tagFilters(term.Tags)
		if term.ID != "" {
			filters = append(filters, filter("group-id", term.ID))
		}
		if term.Name != "" {
			filters = append(filters, filter("group-name", term.Name))
		}
		if len(filters) == 0 {
			continue // an empty term would select everything; validation rejects it
		}
		pages := ec2.NewDescribeSecurityGroupsPaginator(p.clients.EC2, &ec2.DescribeSecurityGroupsInput{Filters: filters})
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			if err != nil {
				return nil, fmt.Errorf("ec2nodeclass %q: securityGroupSelectorTerms[%d]: ec2 DescribeSecurityGroups: %w", nc.Name, i, err)
			}
			for _, g := range page.SecurityGroups {
				id := sdkaws.ToString(g.GroupId)
				byID[id] = securityGroup{ID: id, Name: sdkaws.ToString(g.GroupName)}
			}
		}
	}
	out := make([]securityGroup, 0, len(byID))
	for _, g := range byID {
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b securityGroup) int { return strings.Compare(a.ID, b.ID) })
	p.securityGroupCache.set(key, out)
	return out, nil
}

// securityGroupIDs lists the ids of groups, in order.
func securityGroupIDs(groups []securityGroup) []string {
	ids := make([]string, len(groups))
	for i, g := range groups {
		ids[i] = g.ID
	}
	return ids
}
