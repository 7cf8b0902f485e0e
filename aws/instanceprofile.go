package aws

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"

	"github.com/nodepilot/nodepilot/engine/executor"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// instanceProfile returns the instance profile nodes of nc launch with: spec.instanceProfile as
// given, or for spec.role a profile this provider owns, created through IAM when missing and
// given the role when it has another (a changed spec.role), then cached.
func (p *Provider) instanceProfile(ctx context.Context, nc *awsv1.EC2NodeClass) (string, error) {
	if nc.Spec.InstanceProfile != nil && *nc.Spec.InstanceProfile != "" {
		return *nc.Spec.InstanceProfile, nil
	}
	if nc.Spec.Role == "" {
		return "", fmt.Errorf("ec2nodeclass %q sets neither role nor instanceProfile", nc.Name)
	}
	name := p.InstanceProfileName(nc)
	role := roleName(nc.Spec.Role)
	key := name + "/" + role
	if _, ok := p.profileCache.get(key); ok {
		return name, nil
	}
	// One caller at a time creates the profile and gives it its role: IAM refuses a second
	// CreateInstanceProfile and a second role, and a provisioning batch launches at once.
	p.profileMu.Lock()
	defer p.profileMu.Unlock()
	if _, ok := p.profileCache.get(key); ok {
		return name, nil
	}
	err := p.opts.Act(ctx, executor.Action{Kind: executor.CreateInstanceProfile, Object: "instance-profile/" + name,
		Message: fmt.Sprintf("create or update instance profile %s with role %s for ec2nodeclass %s", name, role, nc.Name)},
		func(ctx context.Context) error { return p.ensureInstanceProfile(ctx, nc, name, role) })
	if err != nil {
		return "", fmt.Errorf("ec2nodeclass %q: instance profile %q for role %q: %w", nc.Name, name, role, err)
	}
	p.profileCache.set(key, name)
	return name, nil
}

func (p *Provider) ensureInstanceProfile(ctx context.Context, nc *awsv1.EC2NodeClass, name, role string) error {
	var profile *iamtypes.InstanceProfile
	got, err := p.clients.IAM.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: sdkaws.String(name)})
	switch {
	case err == nil:
		profile = got.InstanceProfile
	case errorCode(err) == "NoSuchEntity":
		created, err := p.clients.IAM.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{
			InstanceProfileName: sdkaws.String(name),
			Tags: []iamtypes.Tag{
				{Key: sdkaws.String(p.clusterTagKey()), Value: sdkaws.String("owned")},
				{Key: sdkaws.String(awsv1.TagKeyNodeClass), Value: sdkaws.String(nc.Name)},
				{Key: sdkaws.String("topology.kubernetes.io/region"), Value: sdkaws.String(p.opts.Region)},
			},
		})
		if err != nil {
			return fmt.Errorf("iam CreateInstanceProfile: %w", err)
		}
		profile = created.InstanceProfile
	default:
		return fmt.Errorf("iam GetInstanceProfile: %w", err)
	}
	hasRole := false
	for _, r := range profile.Roles {
		if sdkaws.ToString(r.RoleName) == role {
			hasRole = true
			continue
		}
		// A profile holds one role: an old one goes before the new one comes.
		if _, err := p.clients.IAM.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{
			InstanceProfileName: sdkaws.String(name), RoleName: r.RoleName,
		}); err != nil {
			return fmt.Errorf("iam RemoveRoleFromInstanceProfile %q: %w", sdkaws.ToString(r.RoleName), err)
		}
	}
	if hasRole {
		return nil
	}
	if _, err := p.clients.IAM.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{
		InstanceProfileName: sdkaws.String(name), RoleName: sdkaws.String(role),
	}); err != nil {
		return fmt.Errorf("iam AddRoleToInstanceProfile: %w", err)
	}
	return nil
}

// DeleteInstanceProfile deletes, once nc is being deleted, the instance profile this provider
// made for its spec.role, after taking its role out, as Karpenter does on the EC2NodeClass's
// termination. A profile the EC2NodeClass names (spec.instanceProfile) is the user's, and one
// that is gone is done.
func (p *Provider) DeleteInstanceProfile(ctx context.Context, nc *awsv1.EC2NodeClass) error {
	if nc.Spec.Role == "" {
		return nil
	}
	name := p.InstanceProfileName(nc)
	p.profileMu.Lock()
	defer p.profileMu.Unlock()
	return p.opts.Act(ctx, executor.Action{Kind: executor.DeleteInstanceProfile, Object: "instance-profile/" + name,
		Message: fmt.Sprintf("delete instance profile %s of deleted ec2nodeclass %s", name, nc.Name)},
		func(ctx context.Context) error {
			got, err := p.clients.IAM.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: sdkaws.String(name)})
			switch {
			case errorCode(err) == "NoSuchEntity":
				return nil
			case err != nil:
				return fmt.Errorf("iam GetInstanceProfile: %w", err)
			}
			for _, r := range got.InstanceProfile.Roles {
				if _, err := p.clients.IAM.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{
					InstanceProfileName: sdkaws.String(name), RoleName: r.RoleName,
				}); err != nil && errorCode(err) != "NoSuchEntity" {
					return fmt.Errorf("iam RemoveRoleFromInstanceProfile %q: %w", sdkaws.ToString(r.RoleName), err)
				}
			}
			if _, err := p.clients.IAM.DeleteInstanceProfile(ctx, &iam.DeleteInstanceProfileInput{InstanceProfileName: sdkaws.String(name)}); err != nil && errorCode(err) != "NoSuchEntity" {
				return fmt.Errorf("iam DeleteInstanceProfile: %w", err)
			}
			return nil
		})
}

// InstanceProfileName is the name of the instance profile the provider creates for an
// EC2NodeClass with spec.role: the cluster name and a hash of the region and the node class's
// UID (its name when it has no UID), so that a recreated node class gets a new profile.
func (p *Provider) InstanceProfileName(nc *awsv1.EC2NodeClass) string {
	id := string(nc.UID)
	if id == "" {
		id = nc.Name
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(p.opts.Region + "/" + id))
	suffix := "_" + strconv.FormatUint(h.Sum64(), 10)
	cluster := p.opts.ClusterName
	if max := 128 - len(suffix); len(cluster) > max {
		cluster = cluster[:max]
	}
	return cluster + suffix
}

// roleName accepts a role name or ARN (arn:aws:iam::123456789012:role/path/Name) and returns
// the name IAM's instance profile calls want.
func roleName(role string) string {
	if i := strings.LastIndexByte(role, '/'); i >= 0 {
		return role[i+1:]
	}
	return role
}
