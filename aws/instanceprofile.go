package aws

import (
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/executor"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// instanceProfile returns the instance profile nodes of nc launch with: spec.instanceProfile as
// given; for spec.role, the profile status.instanceProfile names while it holds that role (one
// Karpenter made is kept, not replaced, after a move), else this provider's own profile for the
// role, created through IAM when missing as Karpenter creates its own (under the node class's
// path, so that either controller deletes it with the node class). The answer is cached.
func (p *Provider) instanceProfile(ctx context.Context, nc *awsv1.EC2NodeClass) (string, error) {
	if nc.Spec.InstanceProfile != nil && *nc.Spec.InstanceProfile != "" {
		return *nc.Spec.InstanceProfile, nil
	}
	if nc.Spec.Role == "" {
		return "", fmt.Errorf("ec2nodeclass %q sets neither role nor instanceProfile", nc.Name)
	}
	role := roleName(nc.Spec.Role)
	key := string(nc.UID) + "/" + nc.Name + "/" + role
	if name, ok := p.profileCache.get(key); ok {
		return name, nil
	}
	// One caller at a time creates the profile and gives it its role: IAM refuses a second
	// CreateInstanceProfile and a second role, and a provisioning batch launches at once.
	p.profileMu.Lock()
	defer p.profileMu.Unlock()
	if name, ok := p.profileCache.get(key); ok {
		return name, nil
	}
	if current := nc.Status.InstanceProfile; current != "" {
		holds, err := p.profileHolds(ctx, current, role)
		if err != nil {
			return "", fmt.Errorf("ec2nodeclass %q: instance profile %q: %w", nc.Name, current, err)
		}
		if holds {
			p.profileCache.set(key, current)
			return current, nil
		}
	}
	name := p.InstanceProfileName(nc)
	err := p.opts.Act(ctx, executor.Action{Kind: executor.CreateInstanceProfile, Object: "instance-profile/" + name,
		Message: fmt.Sprintf("create instance profile %s with role %s for ec2nodeclass %s", name, role, nc.Name)},
		func(ctx context.Context) error { return p.ensureInstanceProfile(ctx, nc, name, role) })
	if err != nil {
		return "", fmt.Errorf("ec2nodeclass %q: instance profile %q for role %q: %w", nc.Name, name, role, err)
	}
	p.profileCache.set(key, name)
	return name, nil
}

// profileHolds reports whether the instance profile exists and holds role.
func (p *Provider) profileHolds(ctx context.Context, name, role string) (bool, error) {
	got, err := p.clients.IAM.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: sdkaws.String(name)})
	switch {
	case errorCode(err) == "NoSuchEntity":
		return false, nil
	case err != nil:
		return false, fmt.Errorf("iam GetInstanceProfile: %w", err)
	}
	for _, r := range got.InstanceProfile.Roles {
		if sdkaws.ToString(r.RoleName) == role {
			return true, nil
		}
	}
	return false, nil
}

func (p *Provider) ensureInstanceProfile(ctx context.Context, nc *awsv1.EC2NodeClass, name, role string) error {
	var profile *iamtypes.InstanceProfile
	got, err := p.clients.IAM.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: sdkaws.String(name)})
	switch {
	case err == nil:
		profile = got.InstanceProfile
	case errorCode(err) == "NoSuchEntity":
		tags := map[string]string{}
		maps.Copy(tags, nc.Spec.Tags)
		maps.Copy(tags, map[string]string{p.clusterTagKey(): "owned", awsv1.TagKeyEKSClusterName: p.opts.ClusterName,
			awsv1.TagKeyNodeClass: nc.Name, corev1.LabelTopologyRegion: p.opts.Region})
		var iamTags []iamtypes.Tag
		for _, k := range slices.Sorted(maps.Keys(tags)) {
			iamTags = append(iamTags, iamtypes.Tag{Key: sdkaws.String(k), Value: sdkaws.String(tags[k])})
		}
		created, err := p.clients.IAM.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{
			InstanceProfileName: sdkaws.String(name), Path: sdkaws.String(p.profilePath(nc)), Tags: iamTags,
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
		// A profile holds one role: another one goes before this one comes.
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

// DeleteInstanceProfile deletes, once nc is being deleted, every instance profile made for it
// under its path, whichever controller made it (Karpenter v1.14 and nodepilot make them alike),
// and the one an earlier nodepilot named by the node class alone, after taking their roles
// out, as Karpenter does on the EC2NodeClass's termination. A profile the EC2NodeClass names
// (spec.instanceProfile) is the user's, and one that is gone is done.
func (p *Provider) DeleteInstanceProfile(ctx context.Context, nc *awsv1.EC2NodeClass) error {
	p.profileMu.Lock()
	defer p.profileMu.Unlock()
	var names []string
	pager := iam.NewListInstanceProfilesPaginator(p.clients.IAM, &iam.ListInstanceProfilesInput{PathPrefix: sdkaws.String(p.profilePath(nc))})
	for pager.HasMorePages() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("ec2nodeclass %q: iam ListInstanceProfiles: %w", nc.Name, err)
		}
		for _, ip := range page.InstanceProfiles {
			names = append(names, sdkaws.ToString(ip.InstanceProfileName))
		}
	}
	if legacy := p.legacyInstanceProfileName(nc); nc.Spec.Role != "" && !slices.Contains(names, legacy) {
		names = append(names, legacy)
	}
	for _, name := range names {
		err := p.opts.Act(ctx, executor.Action{Kind: executor.DeleteInstanceProfile, Object: "instance-profile/" + name,
			Message: fmt.Sprintf("delete instance profile %s of deleted ec2nodeclass %s", name, nc.Name)},
			func(ctx context.Context) error { return p.deleteInstanceProfile(ctx, name) })
		if err != nil {
			return err
		}
	}
	return nil
}

// deleteInstanceProfile takes an instance profile's roles out and deletes it; one that is gone
// is done.
func (p *Provider) deleteInstanceProfile(ctx context.Context, name string) error {
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
}

// profilePath is the IAM path of the instance profiles made for an EC2NodeClass, Karpenter
// v1.14's: /karpenter/REGION/CLUSTER/UID/.
func (p *Provider) profilePath(nc *awsv1.EC2NodeClass) string {
	return "/karpenter/" + p.opts.Region + "/" + p.opts.ClusterName + "/" + string(nc.UID) + "/"
}

// InstanceProfileName is the name of the instance profile the provider creates for an
// EC2NodeClass's spec.role: the cluster name and a hash of the region, the node class's UID
// (its name when it has none) and the role, so that a recreated node class or a new role gets a
// new profile, and the nodes running with the old one keep their role (Karpenter also makes a
// new profile for a new role).
func (p *Provider) InstanceProfileName(nc *awsv1.EC2NodeClass) string {
	return p.profileName(nc, "/"+roleName(nc.Spec.Role))
}

// legacyInstanceProfileName is the name nodepilot gave the profile before it followed
// Karpenter's layout: the same, without the role.
func (p *Provider) legacyInstanceProfileName(nc *awsv1.EC2NodeClass) string {
	return p.profileName(nc, "")
}

func (p *Provider) profileName(nc *awsv1.EC2NodeClass, suffix string) string {
	id := string(nc.UID)
	if id == "" {
		id = nc.Name
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(p.opts.Region + "/" + id + suffix))
	tail := "_" + strconv.FormatUint(h.Sum64(), 10)
	cluster := p.opts.ClusterName
	if max := 128 - len(tail); len(cluster) > max {
		cluster = cluster[:max]
	}
	return cluster + tail
}

// roleName accepts a role name or ARN (arn:aws:iam::123456789012:role/path/Name) and returns
// the name IAM's instance profile calls want.
func roleName(role string) string {
	if i := strings.LastIndexByte(role, '/'); i >= 0 {
		return role[i+1:]
	}
	return role
}
