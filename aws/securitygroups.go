package aws

import (
	"context"
	"fmt"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

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
	terms := make([][]ec2types.Filter, len(nc.Spec.SecurityGroupSelectorTerms))
	for i, term := range nc.Spec.SecurityGroupSelectorTerms {
		terms[i] = tagFilters(term.Tags)
		if term.ID != "" {
			terms[i] = append(terms[i], filter("group-id", term.ID))
		}
		if term.Name != "" {
			terms[i] = append(terms[i], filter("group-name", term.Name))
		}
	}
	out, err := selectByTerms(ctx, "securityGroupSelectorTerms", terms, p.describeSecurityGroups, func(g securityGroup) string { return g.ID })
	if err != nil {
		return nil, fmt.Errorf("ec2nodeclass %q: %w", nc.Name, err)
	}
	p.securityGroupCache.set(key, out)
	return out, nil
}

// describeSecurityGroups lists the security groups that filters select.
func (p *Provider) describeSecurityGroups(ctx context.Context, filters []ec2types.Filter) ([]securityGroup, error) {
	var out []securityGroup
	pages := ec2.NewDescribeSecurityGroupsPaginator(p.clients.EC2, &ec2.DescribeSecurityGroupsInput{Filters: filters})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("ec2 DescribeSecurityGroups: %w", err)
		}
		for _, g := range page.SecurityGroups {
			out = append(out, securityGroup{ID: sdkaws.ToString(g.GroupId), Name: sdkaws.ToString(g.GroupName)})
		}
	}
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
