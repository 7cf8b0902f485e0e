package emulator

import (
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

func TestLaunchTemplates(t *testing.T) {
	_, _, c := startFake(t, Config{})
	create := func(name, cluster, token string) (*ec2.CreateLaunchTemplateOutput, error) {
		in := &ec2.CreateLaunchTemplateInput{
			LaunchTemplateName: aws.String(name),
			LaunchTemplateData: &types.RequestLaunchTemplateData{ImageId: aws.String("ami-0123456789abcdef0")},
			TagSpecifications: []types.TagSpecification{{ResourceType: types.ResourceTypeLaunchTemplate,
				Tags: []types.Tag{{Key: aws.String("karpenter.k8s.aws/cluster"), Value: aws.String(cluster)}}}},
		}
		if token != "" {
			in.ClientToken = aws.String(token)
		}
		return c.ec2.CreateLaunchTemplate(ctx(t), in)
	}
	a, err := create("karpenter.k8s.aws/1111", "blue", "")
	if err != nil {
		t.Fatal(err)
	}
	if *a.LaunchTemplate.LaunchTemplateId == "" || *a.LaunchTemplate.LatestVersionNumber != 1 || len(a.LaunchTemplate.Tags) != 1 {
		t.Errorf("created %+v", a.LaunchTemplate)
	}
	if _, err := create("karpenter.k8s.aws/2222", "blue", "tok-1"); err != nil {
		t.Fatal(err)
	}
	again, err := create("karpenter.k8s.aws/2222", "blue", "tok-1")
	if err != nil {
		t.Errorf("same client token again: %v, want the first template", err)
	} else if *again.LaunchTemplate.LaunchTemplateName != "karpenter.k8s.aws/2222" {
		t.Errorf("same client token: %v", *again.LaunchTemplate.LaunchTemplateName)
	}
	if _, err := create("karpenter.k8s.aws/3333", "green", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := create("karpenter.k8s.aws/1111", "blue", ""); apiCode(err) != "InvalidLaunchTemplateName.AlreadyExistsException" {
		t.Errorf("duplicate name: %v", err)
	}
	if _, err := create("x", "blue", ""); apiCode(err) != "InvalidParameterValue" {
		t.Errorf("short name: %v", err)
	}

	tests := []struct {
		name string
		in   *ec2.DescribeLaunchTemplatesInput
		want []string
		code string
	}{
		{"all", &ec2.DescribeLaunchTemplatesInput{}, []string{"karpenter.k8s.aws/1111", "karpenter.k8s.aws/2222", "karpenter.k8s.aws/3333"}, ""},
		{"by tag", &ec2.DescribeLaunchTemplatesInput{Filters: []types.Filter{{Name: aws.String("tag:karpenter.k8s.aws/cluster"), Values: []string{"blue"}}}}, []string{"karpenter.k8s.aws/1111", "karpenter.k8s.aws/2222"}, ""},
		{"by tag key", &ec2.DescribeLaunchTemplatesInput{Filters: []types.Filter{{Name: aws.String("tag-key"), Values: []string{"karpenter.k8s.aws/cluster"}}}}, []string{"karpenter.k8s.aws/1111", "karpenter.k8s.aws/2222", "karpenter.k8s.aws/3333"}, ""},
		{"by name", &ec2.DescribeLaunchTemplatesInput{LaunchTemplateNames: []string{"karpenter.k8s.aws/3333"}}, []string{"karpenter.k8s.aws/3333"}, ""},
		{"by id", &ec2.DescribeLaunchTemplatesInput{LaunchTemplateIds: []string{*a.LaunchTemplate.LaunchTemplateId}}, []string{"karpenter.k8s.aws/1111"}, ""},
		{"unknown name", &ec2.DescribeLaunchTemplatesInput{LaunchTemplateNames: []string{"nope"}}, nil, "InvalidLaunchTemplateName.NotFoundException"},
		{"unknown id", &ec2.DescribeLaunchTemplatesInput{LaunchTemplateIds: []string{"lt-0123456789abcdef0"}}, nil, "InvalidLaunchTemplateId.NotFound"},
		{"malformed id", &ec2.DescribeLaunchTemplatesInput{LaunchTemplateIds: []string{"template"}}, nil, "InvalidLaunchTemplateId.Malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := c.ec2.DescribeLaunchTemplates(ctx(t), tt.in)
			if failedAs(t, err, tt.code) {
				return
			}
			var got []string
			for _, lt := range out.LaunchTemplates {
				got = append(got, *lt.LaunchTemplateName)
			}
			sort.Strings(got)
			if !equalStrings(got, tt.want) {
				t.Errorf("templates %v, want %v", got, tt.want)
			}
		})
	}

	del, err := c.ec2.DeleteLaunchTemplate(ctx(t), &ec2.DeleteLaunchTemplateInput{LaunchTemplateName: aws.String("karpenter.k8s.aws/1111")})
	if err != nil || *del.LaunchTemplate.LaunchTemplateId != *a.LaunchTemplate.LaunchTemplateId {
		t.Fatalf("delete: %v", err)
	}
	if _, err := c.ec2.DeleteLaunchTemplate(ctx(t), &ec2.DeleteLaunchTemplateInput{LaunchTemplateId: a.LaunchTemplate.LaunchTemplateId}); apiCode(err) != "InvalidLaunchTemplateId.NotFound" {
		t.Errorf("delete twice: %v", err)
	}
	out, err := c.ec2.DescribeLaunchTemplates(ctx(t), &ec2.DescribeLaunchTemplatesInput{MaxResults: aws.Int32(1)})
	if err != nil || len(out.LaunchTemplates) != 1 || out.NextToken == nil {
		t.Errorf("first page of one: %v %+v", err, out)
	}
}

func TestDryRun(t *testing.T) {
	e, _, c := startFake(t, Config{})
	_, err := c.ec2.CreateLaunchTemplate(ctx(t), &ec2.CreateLaunchTemplateInput{DryRun: aws.Bool(true), LaunchTemplateName: aws.String("dry-run"),
		LaunchTemplateData: &types.RequestLaunchTemplateData{ImageId: aws.String("ami-0123456789abcdef0")}})
	if apiCode(err) != "DryRunOperation" {
		t.Errorf("dry run: %v, want DryRunOperation", err)
	}
	e.mu.Lock()
	n := len(e.templates)
	e.mu.Unlock()
	if n != 0 {
		t.Errorf("a dry run created %d templates", n)
	}
}
