package aws

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// ami is an image an EC2NodeClass selects, for one architecture.
type ami struct {
	ID, Name string
	// Arch uses Kubernetes' spelling (amd64, arm64).
	Arch string
	// Created is the image's creation date as EC2 writes it (ISO 8601, so it sorts); empty for
	// images found through an SSM parameter alone.
	Created    string
	Deprecated bool
}

// amis resolves an EC2NodeClass's amiSelectorTerms to the newest image per architecture,
// sorted by architecture, cached for the selector TTL: an alias through the SSM public
// parameters of its family and the provider's Kubernetes version; ssmParameter terms through
// SSM then DescribeImages; id, name, owner and tags terms through DescribeImages (terms ORed;
// fields of a term ANDed). Non-deprecated images win over newer deprecated ones.
func (p *Provider) amis(ctx context.Context, nc *awsv1.EC2NodeClass) ([]ami, error) {
	key := cacheKey(nc.Spec.AMISelectorTerms, p.opts.KubernetesVersion)
	if cached, ok := p.amiCache.get(key); ok {
		return cached, nil
	}
	var found []ami
	var err error
	if alias := nc.Alias(); alias != nil {
		found, err = p.aliasAMIs(ctx, *alias)
	} else {
		found, err = p.selectedAMIs(ctx, nc.Spec.AMISelectorTerms)
	}
	if err != nil {
		return nil, fmt.Errorf("ec2nodeclass %q: amiSelectorTerms: %w", nc.Name, err)
	}
	out := newestPerArch(found)
	if len(out) == 0 {
		return nil, fmt.Errorf("ec2nodeclass %q: amiSelectorTerms select no x86_64 or arm64 image", nc.Name)
	}
	p.amiCache.set(key, out)
	return out, nil
}

// unsupportedAliasError says an alias names a family that publishes no AMI for the cluster's
// Kubernetes version: AL2 ends at 1.32, Windows Server 2025 starts at 1.35. Karpenter refuses
// such an EC2NodeClass the same way (its AMIsReady condition False, reason UnsupportedAlias).
type unsupportedAliasError struct {
	Alias, KubernetesVersion, Why string
}

func (e *unsupportedAliasError) Error() string {
	return fmt.Sprintf("alias %s cannot be used on Kubernetes %s: %s", e.Alias, e.KubernetesVersion, e.Why)
}

// aliasSupported returns an unsupportedAliasError when alias's family has no AMI for Kubernetes
// k8s ("1.33"), else nil.
func aliasSupported(alias awsv1.Alias, k8s string) error {
	_, minorText, _ := strings.Cut(k8s, ".")
	minor, err := strconv.Atoi(minorText)
	if err != nil {
		return nil // a version that does not parse is checked by the SSM lookup, not here
	}
	switch {
	case alias.Family == awsv1.AMIFamilyAL2 && minor >= 33:
		return &unsupportedAliasError{alias.String(), k8s, "EKS publishes no AL2 AMI from Kubernetes 1.33 on; use al2023@latest (or bottlerocket@latest)"}
	case alias.Family == awsv1.AMIFamilyWindows2025 && minor < 35:
		return &unsupportedAliasError{alias.String(), k8s, "EKS publishes Windows Server 2025 AMIs from Kubernetes 1.35 on; use windows2022@latest"}
	}
	return nil
}

// aliasParameters returns the SSM public parameter holding each architecture's image id of an
// EKS-optimized AMI family at a release ("latest" or a version such as v20240625).
func aliasParameters(alias awsv1.Alias, k8s string) (map[string]string, error) {
	if k8s == "" {
		return nil, errors.New("alias " + alias.String() + " needs the cluster's Kubernetes version (provider option KubernetesVersion)")
	}
	if err := aliasSupported(alias, k8s); err != nil {
		return nil, err
	}
	latest := alias.Version == awsv1.AliasVersionLatest
	archs := map[string]string{karpv1.ArchitectureAmd64: "x86_64", karpv1.ArchitectureArm64: "arm64"}
	out := map[string]string{}
	switch {
	case alias.Family == awsv1.AMIFamilyAL2023:
		for arch, ec2Arch := range archs {
			name := "recommended"
			if !latest {
				name = fmt.Sprintf("amazon-eks-node-al2023-%s-standard-%s-%s", ec2Arch, k8s, alias.Version)
			}
			out[arch] = fmt.Sprintf("/aws/service/eks/optimized-ami/%s/amazon-linux-2023/%s/standard/%s/image_id", k8s, ec2Arch, name)
		}
	case alias.Family == awsv1.AMIFamilyAL2:
		amd, arm := "recommended", "recommended"
		if !latest {
			amd = fmt.Sprintf("amazon-eks-node-%s-%s", k8s, alias.Version)
			arm = fmt.Sprintf("amazon-eks-arm64-node-%s-%s", k8s, alias.Version)
		}
		out[karpv1.ArchitectureAmd64] = fmt.Sprintf("/aws/service/eks/optimized-ami/%s/amazon-linux-2/%s/image_id", k8s, amd)
		out[karpv1.ArchitectureArm64] = fmt.Sprintf("/aws/service/eks/optimized-ami/%s/amazon-linux-2-arm64/%s/image_id", k8s, arm)
	case alias.Family == awsv1.AMIFamilyBottlerocket:
		for arch, ec2Arch := range archs {
			out[arch] = fmt.Sprintf("/aws/service/bottlerocket/aws-k8s-%s/%s/%s/image_id", k8s, ec2Arch, strings.TrimPrefix(alias.Version, "v"))
		}
	case awsv1.IsWindows(alias.Family):
		year := strings.TrimPrefix(alias.Family, "Windows")
		out[karpv1.ArchitectureAmd64] = fmt.Sprintf("/aws/service/ami-windows-latest/Windows_Server-%s-English-Core-EKS_Optimized-%s/image_id", year, k8s)
	default:
		return nil, fmt.Errorf("alias %s: no public AMI parameters for family %s", alias, alias.Family)
	}
	return out, nil
}

// aliasAMIs reads the image ids of an alias from SSM, one parameter per architecture.
func (p *Provider) aliasAMIs(ctx context.Context, alias awsv1.Alias) ([]ami, error) {
	params, err := aliasParameters(alias, p.opts.KubernetesVersion)
	if err != nil {
		return nil, err
	}
	values, err := p.ssmParameters(ctx, slices.Sorted(maps.Values(params)))
	if err != nil {
		return nil, fmt.Errorf("alias %s: %w", alias, err)
	}
	var out []ami
	for arch, name := range params {
		if id, ok := values[name]; ok {
			out = append(out, ami{ID: id, Arch: arch})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("alias %s: no SSM parameter found among %v", alias, slices.Sorted(maps.Values(params)))
	}
	return out, nil
}

// ssmParameters reads parameter values by name, one GetParameter each; names SSM does not know
// are left out.
func (p *Provider) ssmParameters(ctx context.Context, names []string) (map[string]string, error) {
	out := map[string]string{}
	for _, name := range names {
		res, err := p.clients.SSM.GetParameter(ctx, &ssm.GetParameterInput{Name: sdkaws.String(name)})
		if errorCode(err) == "ParameterNotFound" {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("ssm GetParameter %s: %w", name, err)
		}
		if res.Parameter != nil {
			out[name] = sdkaws.ToString(res.Parameter.Value)
		}
	}
	return out, nil
}

// selectedAMIs runs one DescribeImages per term; ssmParameter terms are first read from SSM
// and then described by id to learn their architecture.
func (p *Provider) selectedAMIs(ctx context.Context, terms []awsv1.AMISelectorTerm) ([]ami, error) {
	var out []ami
	for i, term := range terms {
		input := &ec2.DescribeImagesInput{IncludeDeprecated: sdkaws.Bool(true)}
		input.Filters = tagFilters(term.Tags)
		switch {
		case term.SSMParameter != "":
			values, err := p.ssmParameters(ctx, []string{term.SSMParameter})
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			id, ok := values[term.SSMParameter]
			if !ok {
				return nil, fmt.Errorf("[%d]: ssm parameter %q not found", i, term.SSMParameter)
			}
			input.Filters = append(input.Filters, filter("image-id", id))
		case term.ID != "":
			input.Filters = append(input.Filters, filter("image-id", term.ID))
		}
		if term.Name != "" {
			input.Filters = append(input.Filters, filter("name", term.Name))
		}
		switch {
		case term.Owner != "":
			input.Owners = []string{term.Owner}
		case term.Name != "":
			// A name alone could match anyone's public image: only trust ours and Amazon's.
			input.Owners = []string{"self", "amazon"}
		}
		if len(input.Filters) == 0 && len(input.Owners) == 0 {
			continue // an empty term would select every public image; validation rejects it
		}
		images, err := describeImages(ctx, p.clients.EC2, input, p.clock.Now())
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out = append(out, images...)
	}
	return out, nil
}

func describeImages(ctx context.Context, api EC2API, input *ec2.DescribeImagesInput, now time.Time) ([]ami, error) {
	var out []ami
	pages := ec2.NewDescribeImagesPaginator(api, input)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("ec2 DescribeImages: %w", err)
		}
		for _, img := range page.Images {
			arch := archOf([]ec2types.ArchitectureType{ec2types.ArchitectureType(img.Architecture)})
			if arch == "" || (img.State != "" && img.State != ec2types.ImageStateAvailable) {
				continue
			}
			out = append(out, ami{
				ID:         sdkaws.ToString(img.ImageId),
				Name:       sdkaws.ToString(img.Name),
				Arch:       arch,
				Created:    sdkaws.ToString(img.CreationDate),
				Deprecated: deprecated(sdkaws.ToString(img.DeprecationTime), now),
			})
		}
	}
	return out, nil
}

// deprecated reports whether an image's deprecation time has passed.
func deprecated(when string, now time.Time) bool {
	if when == "" {
		return false
	}
	t, err := time.Parse(time.RFC3339, when)
	return err == nil && t.Before(now)
}

// newestPerArch keeps one image per architecture: non-deprecated first, then the newest, then
// the lowest id. The result is sorted by architecture.
func newestPerArch(images []ami) []ami {
	best := map[string]ami{}
	for _, img := range images {
		cur, ok := best[img.Arch]
		if !ok || newer(img, cur) {
			best[img.Arch] = img
		}
	}
	out := make([]ami, 0, len(best))
	for _, img := range best {
		out = append(out, img)
	}
	slices.SortFunc(out, func(a, b ami) int { return strings.Compare(a.Arch, b.Arch) })
	return out
}

func newer(a, b ami) bool {
	if a.Deprecated != b.Deprecated {
		return !a.Deprecated
	}
	if a.Created != b.Created {
		return a.Created > b.Created
	}
	return a.ID < b.ID
}

// amiFor returns the image of an architecture.
func amiFor(amis []ami, arch string) (ami, bool) {
	for _, a := range amis {
		if a.Arch == arch {
			return a, true
		}
	}
	return ami{}, false
}

// arches lists the architectures of the images.
func arches(amis []ami) []string {
	out := make([]string, len(amis))
	for i, a := range amis {
		out[i] = a.Arch
	}
	return out
}
