package emulator

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

func TestIAMRolesAndProfiles(t *testing.T) {
	_, _, c := startFake(t, Config{})
	for _, name := range []string{"KarpenterNodeRole", "eks-karpenter-node-role"} {
		r, err := c.iam.GetRole(ctx(t), &iam.GetRoleInput{RoleName: aws.String(name)})
		if err != nil || *r.Role.RoleName != name || *r.Role.Arn != "arn:aws:iam::123456789012:role/"+name || r.Role.CreateDate == nil {
			t.Errorf("GetRole(%s): %v %+v", name, err, r)
		}
	}
	noSuchEntity := func(t *testing.T, err error) {
		t.Helper()
		var nse *iamtypes.NoSuchEntityException
		var re *awshttp.ResponseError
		if !errors.As(err, &nse) || !errors.As(err, &re) || re.HTTPStatusCode() != 404 {
			t.Errorf("%v, want NoSuchEntity with HTTP 404", err)
		}
	}
	_, err := c.iam.GetRole(ctx(t), &iam.GetRoleInput{RoleName: aws.String("Nope")})
	noSuchEntity(t, err)

	pre, err := c.iam.GetInstanceProfile(ctx(t), &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("KarpenterNodeInstanceProfile")})
	if err != nil || len(pre.InstanceProfile.Roles) != 1 || *pre.InstanceProfile.Roles[0].RoleName != "KarpenterNodeRole" {
		t.Fatalf("default profile: %v %+v", err, pre)
	}

	name := aws.String("my-cluster_2894937462862942648")
	_, err = c.iam.GetInstanceProfile(ctx(t), &iam.GetInstanceProfileInput{InstanceProfileName: name})
	noSuchEntity(t, err)
	created, err := c.iam.CreateInstanceProfile(ctx(t), &iam.CreateInstanceProfileInput{InstanceProfileName: name, Path: aws.String("/karpenter/us-east-1/my-cluster/abc/"),
		Tags: []iamtypes.Tag{{Key: aws.String("karpenter.sh/managed-by"), Value: aws.String("my-cluster")}}})
	if err != nil || *created.InstanceProfile.Arn != "arn:aws:iam::123456789012:instance-profile/karpenter/us-east-1/my-cluster/abc/"+*name || len(created.InstanceProfile.Tags) != 1 {
		t.Fatalf("create: %v %+v", err, created)
	}
	_, err = c.iam.CreateInstanceProfile(ctx(t), &iam.CreateInstanceProfileInput{InstanceProfileName: name})
	var exists *iamtypes.EntityAlreadyExistsException
	if !errors.As(err, &exists) {
		t.Errorf("create twice: %v", err)
	}
	steps := []struct {
		name string
		call func() error
		want func(error) bool
	}{
		{"add unknown role", func() error {
			_, err := c.iam.AddRoleToInstanceProfile(ctx(t), &iam.AddRoleToInstanceProfileInput{InstanceProfileName: name, RoleName: aws.String("Nope")})
			return err
		}, func(err error) bool { var e *iamtypes.NoSuchEntityException; return errors.As(err, &e) }},
		{"add role", func() error {
			_, err := c.iam.AddRoleToInstanceProfile(ctx(t), &iam.AddRoleToInstanceProfileInput{InstanceProfileName: name, RoleName: aws.String("KarpenterNodeRole")})
			return err
		}, func(err error) bool { return err == nil }},
		{"add a second role", func() error {
			_, err := c.iam.AddRoleToInstanceProfile(ctx(t), &iam.AddRoleToInstanceProfileInput{InstanceProfileName: name, RoleName: aws.String("eks-karpenter-node-role")})
			return err
		}, func(err error) bool { var e *iamtypes.LimitExceededException; return errors.As(err, &e) }},
		{"tag", func() error {
			_, err := c.iam.TagInstanceProfile(ctx(t), &iam.TagInstanceProfileInput{InstanceProfileName: name, Tags: []iamtypes.Tag{{Key: aws.String("team"), Value: aws.String("a")}}})
			return err
		}, func(err error) bool { return err == nil }},
		{"delete with a role", func() error {
			_, err := c.iam.DeleteInstanceProfile(ctx(t), &iam.DeleteInstanceProfileInput{InstanceProfileName: name})
			return err
		}, func(err error) bool { var e *iamtypes.DeleteConflictException; return errors.As(err, &e) }},
		{"remove role", func() error {
			_, err := c.iam.RemoveRoleFromInstanceProfile(ctx(t), &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: name, RoleName: aws.String("KarpenterNodeRole")})
			return err
		}, func(err error) bool { return err == nil }},
		{"delete", func() error {
			_, err := c.iam.DeleteInstanceProfile(ctx(t), &iam.DeleteInstanceProfileInput{InstanceProfileName: name})
			return err
		}, func(err error) bool { return err == nil }},
		{"delete again", func() error {
			_, err := c.iam.DeleteInstanceProfile(ctx(t), &iam.DeleteInstanceProfileInput{InstanceProfileName: name})
			return err
		}, func(err error) bool { var e *iamtypes.NoSuchEntityException; return errors.As(err, &e) }},
		{"tag a missing profile", func() error {
			_, err := c.iam.TagInstanceProfile(ctx(t), &iam.TagInstanceProfileInput{InstanceProfileName: name, Tags: []iamtypes.Tag{{Key: aws.String("a"), Value: aws.String("b")}}})
			return err
		}, func(err error) bool { var e *iamtypes.NoSuchEntityException; return errors.As(err, &e) }},
	}
	for i, s := range steps {
		err := s.call()
		if !s.want(err) {
			t.Fatalf("step %d (%s): unexpected result %v", i+1, s.name, err)
		}
		if s.name == "tag" {
			got, err := c.iam.GetInstanceProfile(ctx(t), &iam.GetInstanceProfileInput{InstanceProfileName: name})
			if err != nil || len(got.InstanceProfile.Tags) != 2 || len(got.InstanceProfile.Roles) != 1 {
				t.Errorf("after tagging: %v %+v", err, got.InstanceProfile)
			}
		}
	}
}
