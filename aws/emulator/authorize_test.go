package emulator

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/smithy-go"

	"github.com/nodepilot/nodepilot/aws/policy"
)

func TestEveryOperationHasAnAuthorizer(t *testing.T) {
	for _, op := range operationNames() {
		svc, ok := operationService(op)
		if !ok || authorizerFor(svc, op) == nil {
			t.Errorf("%s has no authorizer: under a policy it would always be refused", op)
		}
	}
}

func evaluator(t *testing.T, doc string) *policy.Evaluator {
	t.Helper()
	ev, err := policy.NewEvaluator([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// refusedWith checks that err is AWS's refusal of action: its code, HTTP status and message.
func refusedWith(t *testing.T, err error, code string, status int, action, resource string) {
	t.Helper()
	var ae smithy.APIError
	var re *awshttp.ResponseError
	if !errors.As(err, &ae) || !errors.As(err, &re) {
		t.Fatalf("error %v, want an API error", err)
	}
	if ae.ErrorCode() != code || re.HTTPStatusCode() != status {
		t.Errorf("error %s (HTTP %d), want %s (HTTP %d)", ae.ErrorCode(), re.HTTPStatusCode(), code, status)
	}
	want := "User: arn:aws:iam::123456789012:user/AKIDEMULATOR is not authorized to perform: " + action
	if resource != "" {
		want += " on resource: " + resource
	}
	if msg := ae.ErrorMessage(); !strings.Contains(msg, want) || !strings.Contains(msg, "identity-based policy") {
		t.Errorf("message %q, want it to contain %q", msg, want)
	}
}

// TestRefusalsInEachServicesShape: a call the policy does not allow is refused before it is
// served, with the error the service returns for it, through the real SDK clients.
func TestRefusalsInEachServicesShape(t *testing.T) {
	e, _, c := startFake(t, Config{Policy: evaluator(t, `{"Version":"2012-10-17","Statement":[
		{"Sid":"Facts","Effect":"Allow","Action":["ec2:DescribeSubnets","ec2:DescribeInstances"],"Resource":"*",
		 "Condition":{"StringEquals":{"aws:RequestedRegion":"us-east-1"}}},
		{"Sid":"NoInstances","Effect":"Deny","Action":"ec2:DescribeInstances","Resource":"*"}]}`)})
	if _, err := c.ec2.DescribeSubnets(ctx(t), &ec2.DescribeSubnetsInput{}); err != nil {
		t.Fatalf("an allowed call: %v", err)
	}
	other := sdkConfig("eu-west-1")
	other.HTTPClient = e.HTTPClient()
	elsewhere := ec2.NewFromConfig(other, func(o *ec2.Options) { o.BaseEndpoint = aws.String(e.Endpoint()) })
	_, err := elsewhere.DescribeSubnets(ctx(t), &ec2.DescribeSubnetsInput{})
	refusedWith(t, err, "UnauthorizedOperation", http.StatusForbidden, "ec2:DescribeSubnets", "")

	_, err = c.ec2.DescribeInstances(ctx(t), &ec2.DescribeInstancesInput{})
	refusedWith(t, err, "UnauthorizedOperation", http.StatusForbidden, "ec2:DescribeInstances", "")
	if !strings.Contains(err.Error(), "with an explicit deny") {
		t.Errorf("%v, want the explicit deny named", err)
	}
	// A dry run answers whether the call would be allowed.
	_, err = c.ec2.DescribeSubnets(ctx(t), &ec2.DescribeSubnetsInput{DryRun: aws.Bool(true)})
	if code := errorCode(err); code != "DryRunOperation" {
		t.Errorf("an allowed dry run: %v, want DryRunOperation", err)
	}
	_, err = c.ec2.DescribeImages(ctx(t), &ec2.DescribeImagesInput{DryRun: aws.Bool(true)})
	refusedWith(t, err, "UnauthorizedOperation", http.StatusForbidden, "ec2:DescribeImages", "")

	_, err = c.iam.GetInstanceProfile(ctx(t), &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(defaultProfile)})
	refusedWith(t, err, "AccessDenied", http.StatusForbidden, "iam:GetInstanceProfile", "arn:aws:iam::123456789012:instance-profile/"+defaultProfile)
	_, err = c.sqs.GetQueueUrl(ctx(t), &sqs.GetQueueUrlInput{QueueName: aws.String(e.QueueName())})
	refusedWith(t, err, "AccessDenied", http.StatusForbidden, "sqs:GetQueueUrl", "arn:aws:sqs:us-east-1:123456789012:"+e.QueueName())
	_, err = c.ssm.GetParameter(ctx(t), &ssm.GetParameterInput{Name: aws.String("/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id")})
	refusedWith(t, err, "AccessDeniedException", http.StatusBadRequest, "ssm:GetParameter",
		"arn:aws:ssm:us-east-1::parameter/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id")
	_, err = c.pricing.GetProducts(ctx(t), &pricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2")})
	refusedWith(t, err, "AccessDeniedException", http.StatusBadRequest, "pricing:GetProducts", "")

	resp, err := e.HTTPClient().Get(e.Endpoint() + eksPrefix + "my-cluster")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-Amzn-ErrorType") != "AccessDeniedException" {
		t.Errorf("EKS DescribeCluster: HTTP %d %s, want 403 AccessDeniedException", resp.StatusCode, resp.Header.Get("X-Amzn-ErrorType"))
	}

	var actions []string
	for _, r := range e.Refusals() {
		actions = append(actions, r.Operation+"="+r.Action)
	}
	if got := strings.Join(actions, " "); got != "DescribeSubnets=ec2:DescribeSubnets DescribeInstances=ec2:DescribeInstances DescribeImages=ec2:DescribeImages "+
		"GetInstanceProfile=iam:GetInstanceProfile GetQueueUrl=sqs:GetQueueUrl GetParameter=ssm:GetParameter GetProducts=pricing:GetProducts DescribeCluster=eks:DescribeCluster" {
		t.Errorf("refusals %s", got)
	}
	if got := e.AllowedActions(); got["ec2:DescribeSubnets"] != 2 || len(got) != 1 {
		t.Errorf("allowed %v, want ec2:DescribeSubnets twice (the call and the dry run)", got)
	}
}

func errorCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// controllerEvaluator is the controller policy for the emulator's account with cluster "test".
func controllerEvaluator(t *testing.T) *policy.Evaluator {
	t.Helper()
	doc, err := policy.Render(policy.Params{Partition: "aws", Region: "us-east-1", AccountID: "123456789012", ClusterName: "test",
		QueueName: "test", NodeRole: "KarpenterNodeRole"})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := policy.NewEvaluator(doc)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func ec2Tags(kv ...string) []types.Tag {
	var out []types.Tag
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, types.Tag{Key: aws.String(kv[i]), Value: aws.String(kv[i+1])})
	}
	return out
}

// TestControllerPolicyScoping drives the EC2 and IAM calls whose authorization depends on more
// than the action through the real clients, under the controller policy: the tags, roles and
// create actions the policy scopes them by decide, as AWS would.
func TestControllerPolicyScoping(t *testing.T) {
	w, _ := newFleetWorld(t, Config{ClusterName: "test"}) // its templates are made before enforcing
	e, c := w.e, w.c
	e.Enforce(controllerEvaluator(t))
	owned := ec2Tags("kubernetes.io/cluster/test", "owned", "eks:eks-cluster-name", "test")
	image := func(arch string) *string {
		p, err := c.ssm.GetParameter(ctx(t), &ssm.GetParameterInput{Name: aws.String("/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/" + arch + "/standard/recommended/image_id")})
		if err != nil {
			t.Fatal(err)
		}
		return p.Parameter.Value
	}
	template := func(name string, tags []types.Tag, profile string) error {
		_, err := c.ec2.CreateLaunchTemplate(ctx(t), &ec2.CreateLaunchTemplateInput{LaunchTemplateName: aws.String(name),
			LaunchTemplateData: &types.RequestLaunchTemplateData{ImageId: image("x86_64"),
				IamInstanceProfile: &types.LaunchTemplateIamInstanceProfileSpecificationRequest{Name: aws.String(profile)}},
			TagSpecifications: []types.TagSpecification{{ResourceType: types.ResourceTypeLaunchTemplate, Tags: tags}}})
		return err
	}
	fleet := func(lt, token string) (*ec2.CreateFleetOutput, error) {
		in := w.fleet(types.DefaultTargetCapacityTypeSpot, lt, token, w.overrides("m5.large"))
		for _, rt := range []types.ResourceType{types.ResourceTypeInstance, types.ResourceTypeVolume, types.ResourceTypeNetworkInterface,
			types.ResourceTypeFleet, types.ResourceTypeSpotInstancesRequest} {
			in.TagSpecifications = append(in.TagSpecifications, types.TagSpecification{ResourceType: rt,
				Tags: append(ec2Tags("karpenter.sh/nodeclaim", token), owned...)})
		}
		return c.ec2.CreateFleet(ctx(t), in)
	}

	// A template needs the cluster's tags.
	if err := template("owned", owned, defaultProfile); err != nil {
		t.Fatalf("a tagged template: %v", err)
	}
	refusedWith(t, template("untagged", nil, defaultProfile), "UnauthorizedOperation", http.StatusForbidden,
		"ec2:CreateLaunchTemplate", "arn:aws:ec2:us-east-1:123456789012:launch-template/*")

	// A fleet launches from the cluster's templates only, tagging what it creates.
	out, err := fleet("owned", "claim-1")
	if err != nil || len(out.Instances) != 1 || len(out.Errors) != 0 {
		t.Fatalf("a fleet from the cluster's template: %+v, %v", out, err)
	}
	launched := out.Instances[0].InstanceIds[0]
	_, err = fleet(w.ltAMD, "claim-2") // newFleetWorld's template carries no cluster tag
	refusedWith(t, err, "UnauthorizedOperation", http.StatusForbidden, "ec2:CreateFleet",
		"arn:aws:ec2:us-east-1:123456789012:launch-template/"+e.templateByName(w.ltAMD).ID)

	// The role of the template's profile must be the node role: a refused iam:PassRole is the
	// fleet's error, as EC2 reports it, and nothing launches.
	e.mu.Lock()
	other := e.newProfile("other-role", "/", e.now())
	other.Roles = []*role{e.world.roles["eks-karpenter-node-role"]}
	e.profiles[other.Name] = other
	e.mu.Unlock()
	if err := template("other-role", owned, "other-role"); err != nil {
		t.Fatal(err)
	}
	before := len(e.Instances())
	out, err = fleet("other-role", "claim-3")
	if err != nil || len(out.Instances) != 0 || len(out.Errors) == 0 {
		t.Fatalf("a fleet passing another role: %+v, %v; want its errors and no instance", out, err)
	}
	for _, fe := range out.Errors {
		if aws.ToString(fe.ErrorCode) != "UnauthorizedOperation" || !strings.Contains(aws.ToString(fe.ErrorMessage),
			"iam:PassRole on resource: arn:aws:iam::123456789012:role/eks-karpenter-node-role") {
			t.Errorf("fleet error %s: %s, want iam:PassRole of the role refused", aws.ToString(fe.ErrorCode), aws.ToString(fe.ErrorMessage))
		}
	}
	again, err := fleet("other-role", "claim-3")
	if err != nil || aws.ToString(again.FleetId) != aws.ToString(out.FleetId) || len(e.Instances()) != before {
		t.Errorf("the same token again: %v, %v; want the first answer replayed and nothing launched", again, err)
	}

	// Tags go on with a create call only.
	_, err = c.ec2.CreateTags(ctx(t), &ec2.CreateTagsInput{Resources: []string{launched}, Tags: owned})
	refusedWith(t, err, "UnauthorizedOperation", http.StatusForbidden, "ec2:CreateTags", "arn:aws:ec2:us-east-1:123456789012:instance/"+launched)

	// RunInstances, the fleet's launch made directly, is scoped alike.
	run := func(profile string) error {
		lt := e.templateByName("owned")
		_, err := c.ec2.RunInstances(ctx(t), &ec2.RunInstancesInput{MinCount: aws.Int32(1), MaxCount: aws.Int32(1), InstanceType: types.InstanceTypeM5Large,
			LaunchTemplate:     &types.LaunchTemplateSpecification{LaunchTemplateId: aws.String(lt.ID)},
			SubnetId:           aws.String(w.subnets[0].ID),
			IamInstanceProfile: &types.IamInstanceProfileSpecification{Name: aws.String(profile)},
			TagSpecifications: []types.TagSpecification{{ResourceType: types.ResourceTypeInstance, Tags: owned},
				{ResourceType: types.ResourceTypeVolume, Tags: owned}, {ResourceType: types.ResourceTypeNetworkInterface, Tags: owned}}})
		return err
	}
	if err := run(defaultProfile); err != nil {
		t.Errorf("RunInstances from the cluster's template: %v", err)
	}
	refusedWith(t, run("other-role"), "UnauthorizedOperation", http.StatusForbidden, "iam:PassRole", "arn:aws:iam::123456789012:role/eks-karpenter-node-role")

	// Only the cluster's instances that belong to a NodeClaim are terminated.
	if _, err := c.ec2.TerminateInstances(ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{launched}}); err != nil {
		t.Errorf("terminating a NodeClaim's instance: %v", err)
	}
	var unclaimed string
	for _, inst := range e.Instances() {
		if inst.Tags["karpenter.sh/nodeclaim"] == "" && inst.State != "terminated" {
			unclaimed = inst.ID
		}
	}
	_, err = c.ec2.TerminateInstances(ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{unclaimed}})
	refusedWith(t, err, "UnauthorizedOperation", http.StatusForbidden, "ec2:TerminateInstances", "arn:aws:ec2:us-east-1:123456789012:instance/"+unclaimed)

	// Instance profiles: created with the node class's tags under any path, given the node role
	// only.
	profileTags := []iamtypes.Tag{{Key: aws.String("kubernetes.io/cluster/test"), Value: aws.String("owned")},
		{Key: aws.String("topology.kubernetes.io/region"), Value: aws.String("us-east-1")},
		{Key: aws.String("karpenter.k8s.aws/ec2nodeclass"), Value: aws.String("default")}}
	if _, err := c.iam.CreateInstanceProfile(ctx(t), &iam.CreateInstanceProfileInput{InstanceProfileName: aws.String("test_1"),
		Path: aws.String("/karpenter/us-east-1/test/uid/"), Tags: profileTags}); err != nil {
		t.Fatalf("a tagged profile: %v", err)
	}
	_, err = c.iam.CreateInstanceProfile(ctx(t), &iam.CreateInstanceProfileInput{InstanceProfileName: aws.String("test_2"), Tags: profileTags[:2]})
	refusedWith(t, err, "AccessDenied", http.StatusForbidden, "iam:CreateInstanceProfile", "arn:aws:iam::123456789012:instance-profile/test_2")
	_, err = c.iam.AddRoleToInstanceProfile(ctx(t), &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String("test_1"), RoleName: aws.String("eks-karpenter-node-role")})
	refusedWith(t, err, "AccessDenied", http.StatusForbidden, "iam:PassRole", "arn:aws:iam::123456789012:role/eks-karpenter-node-role")
	if _, err := c.iam.AddRoleToInstanceProfile(ctx(t), &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String("test_1"),
		RoleName: aws.String("KarpenterNodeRole")}); err != nil {
		t.Errorf("giving the profile the node role: %v", err)
	}
	_, err = c.iam.RemoveRoleFromInstanceProfile(ctx(t), &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: aws.String(defaultProfile),
		RoleName: aws.String("KarpenterNodeRole")})
	refusedWith(t, err, "AccessDenied", http.StatusForbidden, "iam:RemoveRoleFromInstanceProfile", "arn:aws:iam::123456789012:instance-profile/"+defaultProfile)

	allowed := e.AllowedActions()
	for _, action := range []string{"ec2:CreateLaunchTemplate", "ec2:CreateFleet", "ec2:RunInstances", "ec2:CreateTags", "iam:PassRole",
		"iam:TagInstanceProfile", "ec2:TerminateInstances", "iam:AddRoleToInstanceProfile"} {
		if allowed[action] == 0 {
			t.Errorf("%s was never allowed: %v", action, allowed)
		}
	}
}
