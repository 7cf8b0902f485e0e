package emulator

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
)

func TestGetParameterAliases(t *testing.T) {
	_, _, c := startFake(t, Config{})
	type alias struct {
		name, arch string
		al2        bool // published up to 1.32 only, as EKS
	}
	for _, minor := range []int{28, 32, 33, 40} {
		v := fmt.Sprintf("1.%d", minor)
		for _, a := range []alias{
			{"/aws/service/eks/optimized-ami/%s/amazon-linux-2023/x86_64/standard/recommended/image_id", "x86_64", false},
			{"/aws/service/eks/optimized-ami/%s/amazon-linux-2023/arm64/standard/recommended/image_id", "arm64", false},
			{"/aws/service/eks/optimized-ami/%s/amazon-linux-2023/x86_64/nvidia/recommended/image_id", "x86_64", false},
			{"/aws/service/eks/optimized-ami/%s/amazon-linux-2/recommended/image_id", "x86_64", true},
			{"/aws/service/eks/optimized-ami/%s/amazon-linux-2-arm64/recommended/image_id", "arm64", true},
			{"/aws/service/eks/optimized-ami/%s/amazon-linux-2-gpu/recommended/image_id", "x86_64", true},
			{"/aws/service/bottlerocket/aws-k8s-%s/x86_64/latest/image_id", "x86_64", false},
			{"/aws/service/bottlerocket/aws-k8s-%s/arm64/latest/image_id", "arm64", false},
			{"/aws/service/bottlerocket/aws-k8s-%s-nvidia/x86_64/latest/image_id", "x86_64", false},
		} {
			if a.al2 && minor > 32 {
				continue // not published: checked below
			}
			name := fmt.Sprintf(a.name, v)
			t.Run(name, func(t *testing.T) {
				out, err := c.ssm.GetParameter(ctx(t), &ssm.GetParameterInput{Name: aws.String(name)})
				if err != nil {
					t.Fatal(err)
				}
				id := *out.Parameter.Value
				imgs, err := c.ec2.DescribeImages(ctx(t), &ec2.DescribeImagesInput{Filters: []types.Filter{{Name: aws.String("image-id"), Values: []string{id}}}})
				if err != nil || len(imgs.Images) != 1 {
					t.Fatalf("DescribeImages(%s): %v, %d images", id, err, len(imgs.Images))
				}
				img := imgs.Images[0]
				if string(img.Architecture) != a.arch || img.State != types.ImageStateAvailable || *img.Name == "" {
					t.Errorf("image %s: arch %s state %s name %q, want %s", id, img.Architecture, img.State, *img.Name, a.arch)
				}
				if _, err := time.Parse(time.RFC3339, *img.CreationDate); err != nil {
					t.Errorf("creation date %q: %v", *img.CreationDate, err)
				}
			})
		}
	}
	for _, name := range []string{
		"/aws/service/eks/optimized-ami/1.27/amazon-linux-2023/x86_64/standard/recommended/image_id",
		"/aws/service/eks/optimized-ami/1.41/amazon-linux-2/recommended/image_id",
		"/aws/service/eks/optimized-ami/1.33/amazon-linux-2/recommended/image_id",
		"/aws/service/eks/optimized-ami/1.37/amazon-linux-2-arm64/recommended/image_id",
		"/aws/service/bottlerocket/aws-k8s-1.30/riscv/latest/image_id",
		"/my/own/parameter",
	} {
		_, err := c.ssm.GetParameter(ctx(t), &ssm.GetParameterInput{Name: aws.String(name)})
		var nf *ssmtypes.ParameterNotFound
		if !asError(err, &nf) {
			t.Errorf("%s: %v, want ParameterNotFound", name, err)
		}
	}
}

func TestDescribeImages(t *testing.T) {
	_, _, c := startFake(t, Config{ClusterName: "demo"})
	tests := []struct {
		name    string
		in      *ec2.DescribeImagesInput
		want    int
		check   func(types.Image) bool
		errCode string
	}{
		{"own images", &ec2.DescribeImagesInput{Owners: []string{"self"}}, 4, func(i types.Image) bool { return *i.OwnerId == "123456789012" }, ""},
		{"tagged", &ec2.DescribeImagesInput{Filters: []types.Filter{{Name: aws.String("tag:karpenter.sh/discovery"), Values: []string{"demo"}}}}, 4, nil, ""},
		{"tagged arm64", &ec2.DescribeImagesInput{Filters: []types.Filter{
			{Name: aws.String("tag:karpenter.sh/discovery"), Values: []string{"demo"}},
			{Name: aws.String("architecture"), Values: []string{"arm64"}}}}, 2, func(i types.Image) bool { return i.Architecture == types.ArchitectureValuesArm64 }, ""},
		{"name wildcard and amazon owner", &ec2.DescribeImagesInput{Owners: []string{"amazon"},
			Filters: []types.Filter{{Name: aws.String("name"), Values: []string{"amazon-eks-node-al2023-*-standard-1.30-*"}}}}, 2, nil, ""},
		{"owner id", &ec2.DescribeImagesInput{Owners: []string{"602401143452"}, Filters: []types.Filter{{Name: aws.String("name"), Values: []string{"amazon-eks-node-1.3?-*"}}}}, 3, nil, ""}, // AL2: 1.30 to 1.32
		{"malformed id", &ec2.DescribeImagesInput{ImageIds: []string{"img-1"}}, 0, nil, "InvalidAMIID.Malformed"},
		{"unknown id", &ec2.DescribeImagesInput{ImageIds: []string{"ami-0000000000000000f"}}, 0, nil, "InvalidAMIID.NotFound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := c.ec2.DescribeImages(ctx(t), tt.in)
			if failedAs(t, err, tt.errCode) {
				return
			}
			if len(out.Images) != tt.want {
				t.Fatalf("%d images, want %d", len(out.Images), tt.want)
			}
			for _, img := range out.Images {
				if tt.check != nil && !tt.check(img) {
					t.Errorf("image %s %s does not pass the check", *img.ImageId, *img.Name)
				}
			}
		})
	}
	// The newest custom AMI per architecture is a month newer than the other.
	out, err := c.ec2.DescribeImages(ctx(t), &ec2.DescribeImagesInput{Owners: []string{"self"}, Filters: []types.Filter{{Name: aws.String("architecture"), Values: []string{"x86_64"}}}})
	if err != nil || len(out.Images) != 2 {
		t.Fatalf("%v, %d images", err, len(out.Images))
	}
	dates := []string{*out.Images[0].CreationDate, *out.Images[1].CreationDate}
	sort.Strings(dates)
	if dates[0] == dates[1] {
		t.Errorf("custom AMIs share a creation date %v", dates)
	}
}
