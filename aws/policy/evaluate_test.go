package policy

import (
	"strings"
	"testing"
)

// testParams render the controller policy for a test account.
func testParams() Params {
	return Params{Partition: "aws", Region: "us-east-1", AccountID: "111122223333", ClusterName: "prod",
		QueueName: "prod-interruptions", NodeRole: "KarpenterNodeRole-prod"}
}

func controllerEvaluator(t *testing.T) *Evaluator {
	t.Helper()
	doc, err := Render(testParams())
	if err != nil {
		t.Fatal(err)
	}
	ev, err := NewEvaluator(doc)
	if err != nil {
		t.Fatalf("the rendered controller policy: %v", err)
	}
	return ev
}

// ctx builds a request context from key, value pairs; a key given twice has both values.
func ctx(pairs ...string) map[string][]string {
	out := map[string][]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[pairs[i]] = append(out[pairs[i]], pairs[i+1])
	}
	return out
}

// The ARNs and condition keys of the test account.
const (
	region    = "us-east-1"
	ec2ARN    = "arn:aws:ec2:us-east-1:111122223333:"
	iamARN    = "arn:aws:iam::111122223333:"
	owned     = "aws:ResourceTag/kubernetes.io/cluster/prod"
	ownedReq  = "aws:RequestTag/kubernetes.io/cluster/prod"
	eksReq    = "aws:RequestTag/eks:eks-cluster-name"
	regionKey = "aws:RequestedRegion"
)

// TestControllerPolicy decides, for each statement of the rendered controller policy, requests
// it must allow and requests it must refuse: the region, tag, path and service scoping each
// statement relies on.
func TestControllerPolicy(t *testing.T) {
	ev := controllerEvaluator(t)
	tests := []struct {
		name      string
		statement string // the Sid that must allow it; "" when it must be refused
		req       Request
	}{
		// ReadEC2Facts: the describe calls, in the cluster's region only.
		{"describe in the region", "ReadEC2Facts", Request{Action: "ec2:DescribeInstances", Context: ctx(regionKey, region)}},
		{"actions match case-insensitively", "ReadEC2Facts", Request{Action: "EC2:describeinstancetypes", Context: ctx(regionKey, region)}},
		{"describe in another region", "", Request{Action: "ec2:DescribeInstances", Context: ctx(regionKey, "eu-west-1")}},
		{"describe with no region in the request", "", Request{Action: "ec2:DescribeSubnets"}},
		{"a describe call the policy does not list", "", Request{Action: "ec2:DescribeLaunchTemplates", Context: ctx(regionKey, region)}},

		// LaunchFromSharedResources: public images and snapshots (no account in their ARN), any
		// subnet and security group of the region.
		{"launch from a public image", "LaunchFromSharedResources", Request{Action: "ec2:RunInstances",
			Resources: []string{"arn:aws:ec2:us-east-1::image/ami-0123"}, Context: ctx(regionKey, region)}},
		{"launch from an image of another region", "", Request{Action: "ec2:RunInstances",
			Resources: []string{"arn:aws:ec2:eu-west-1::image/ami-0123"}}},
		{"an image ARN with an account is not a shared one", "", Request{Action: "ec2:RunInstances",
			Resources: []string{ec2ARN + "image/ami-0123"}}},
		{"a fleet into a subnet", "LaunchFromSharedResources", Request{Action: "ec2:CreateFleet", Resources: []string{ec2ARN + "subnet/subnet-1"}}},
		{"a fleet with a security group of any account", "LaunchFromSharedResources", Request{Action: "ec2:CreateFleet",
			Resources: []string{"arn:aws:ec2:us-east-1:999988887777:security-group/sg-1"}}},
		{"terminating is not launching", "", Request{Action: "ec2:TerminateInstances", Resources: []string{ec2ARN + "subnet/subnet-1"}}},

		// LaunchFromOwnLaunchTemplates: only templates tagged for the cluster.
		{"launch from the cluster's template", "LaunchFromOwnLaunchTemplates", Request{Action: "ec2:CreateFleet",
			Resources: []string{ec2ARN + "launch-template/lt-1"}, Context: ctx(owned, "owned")}},
		{"launch from an untagged template", "", Request{Action: "ec2:CreateFleet", Resources: []string{ec2ARN + "launch-template/lt-1"}}},
		{"launch from a shared template", "", Request{Action: "ec2:RunInstances",
			Resources: []string{ec2ARN + "launch-template/lt-1"}, Context: ctx(owned, "shared")}},
		{"launch from another cluster's template", "", Request{Action: "ec2:RunInstances",
			Resources: []string{ec2ARN + "launch-template/lt-1"}, Context: ctx("aws:ResourceTag/kubernetes.io/cluster/dev", "owned")}},

		// CreateOwnTaggedResources: what is created carries the cluster's tags.
		{"create tagged instances", "CreateOwnTaggedResources", Request{Action: "ec2:CreateFleet",
			Resources: []string{ec2ARN + "instance/*"}, Context: ctx(ownedReq, "owned", eksReq, "prod")}},
		{"create instances without the EKS tag", "", Request{Action: "ec2:CreateFleet",
			Resources: []string{ec2ARN + "instance/*"}, Context: ctx(ownedReq, "owned")}},
		{"create instances tagged for another cluster", "", Request{Action: "ec2:RunInstances",
			Resources: []string{ec2ARN + "volume/*"}, Context: ctx(ownedReq, "owned", eksReq, "dev")}},
		{"create a tagged launch template", "CreateOwnTaggedResources", Request{Action: "ec2:CreateLaunchTemplate",
			Resources: []string{ec2ARN + "launch-template/*"}, Context: ctx(ownedReq, "owned", eksReq, "prod")}},
		{"create an untagged launch template", "", Request{Action: "ec2:CreateLaunchTemplate", Resources: []string{ec2ARN + "launch-template/*"}}},
		{"create tagged spot requests in another region", "", Request{Action: "ec2:CreateFleet",
			Resources: []string{"arn:aws:ec2:us-west-2:111122223333:spot-instances-request/*"}, Context: ctx(ownedReq, "owned", eksReq, "prod")}},

		// TagOnlyWhileCreating: tags go on with a create call, never on their own.
		{"tag what a fleet creates", "TagOnlyWhileCreating", Request{Action: "ec2:CreateTags",
			Resources: []string{ec2ARN + "instance/*"}, Context: ctx(ownedReq, "owned", "ec2:CreateAction", "CreateFleet")}},
		{"tag an existing instance", "", Request{Action: "ec2:CreateTags",
			Resources: []string{ec2ARN + "instance/i-1"}, Context: ctx(ownedReq, "owned")}},
		{"tag while creating something else", "", Request{Action: "ec2:CreateTags",
			Resources: []string{ec2ARN + "volume/*"}, Context: ctx(ownedReq, "owned", "ec2:CreateAction", "CreateVolume")}},
		{"tag a subnet while creating", "", Request{Action: "ec2:CreateTags",
			Resources: []string{ec2ARN + "subnet/subnet-1"}, Context: ctx(ownedReq, "owned", "ec2:CreateAction", "RunInstances")}},

		// TerminateOwnInstances: the cluster's instances that belong to a NodeClaim.
		{"terminate a NodeClaim's instance", "TerminateOwnInstances", Request{Action: "ec2:TerminateInstances",
			Resources: []string{ec2ARN + "instance/i-1"}, Context: ctx(owned, "owned", "aws:ResourceTag/karpenter.sh/nodeclaim", "default-x")}},
		{"terminate the cluster's instance of no NodeClaim", "", Request{Action: "ec2:TerminateInstances",
			Resources: []string{ec2ARN + "instance/i-1"}, Context: ctx(owned, "owned")}},
		{"terminate another cluster's instance", "", Request{Action: "ec2:TerminateInstances",
			Resources: []string{ec2ARN + "instance/i-1"}, Context: ctx("aws:ResourceTag/karpenter.sh/nodeclaim", "default-x")}},
		{"terminate one allowed and one refused instance", "", Request{Action: "ec2:TerminateInstances",
			Resources: []string{ec2ARN + "instance/i-1", "arn:aws:ec2:eu-west-1:111122223333:instance/i-2"},
			Context:   ctx(owned, "owned", "aws:ResourceTag/karpenter.sh/nodeclaim", "default-x")}},

		// ReadPublicAMIParameters: AWS's public parameters only.
		{"read an EKS AMI parameter", "ReadPublicAMIParameters", Request{Action: "ssm:GetParameter",
			Resources: []string{"arn:aws:ssm:us-east-1::parameter/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id"}}},
		{"read the account's own parameter", "", Request{Action: "ssm:GetParameter",
			Resources: []string{"arn:aws:ssm:us-east-1:111122223333:parameter/team/ami"}}},
		{"read a public parameter of another region", "", Request{Action: "ssm:GetParameter",
			Resources: []string{"arn:aws:ssm:eu-west-1::parameter/aws/service/eks/x"}}},

		{"read on-demand prices", "ReadOnDemandPrices", Request{Action: "pricing:GetProducts"}},

		// ReadInterruptionQueue: the one queue.
		{"receive from the interruption queue", "ReadInterruptionQueue", Request{Action: "sqs:ReceiveMessage",
			Resources: []string{"arn:aws:sqs:us-east-1:111122223333:prod-interruptions"}}},
		{"receive from another queue", "", Request{Action: "sqs:ReceiveMessage", Resources: []string{"arn:aws:sqs:us-east-1:111122223333:orders"}}},
		{"send to the interruption queue", "", Request{Action: "sqs:SendMessage",
			Resources: []string{"arn:aws:sqs:us-east-1:111122223333:prod-interruptions"}}},

		// PassNodeRoleToEC2: the node role, to EC2 only.
		{"pass the node role to EC2", "PassNodeRoleToEC2", Request{Action: "iam:PassRole",
			Resources: []string{iamARN + "role/KarpenterNodeRole-prod"}, Context: ctx("iam:PassedToService", "ec2.amazonaws.com")}},
		{"pass the node role to Lambda", "", Request{Action: "iam:PassRole",
			Resources: []string{iamARN + "role/KarpenterNodeRole-prod"}, Context: ctx("iam:PassedToService", "lambda.amazonaws.com")}},
		{"pass the node role to no service", "", Request{Action: "iam:PassRole", Resources: []string{iamARN + "role/KarpenterNodeRole-prod"}}},
		{"pass an admin role to EC2", "", Request{Action: "iam:PassRole",
			Resources: []string{iamARN + "role/Admin"}, Context: ctx("iam:PassedToService", "ec2.amazonaws.com")}},
		{"pass a role of that name under a path", "", Request{Action: "iam:PassRole",
			Resources: []string{iamARN + "role/team/KarpenterNodeRole-prod"}, Context: ctx("iam:PassedToService", "ec2.amazonaws.com")}},

		// CreateOwnInstanceProfiles: created with the cluster's, the region's and a node class's tags.
		{"create a tagged instance profile under a path", "CreateOwnInstanceProfiles", Request{Action: "iam:CreateInstanceProfile",
			Resources: []string{iamARN + "instance-profile/karpenter/us-east-1/prod/uid/prod_1"},
			Context: ctx(ownedReq, "owned", "aws:RequestTag/topology.kubernetes.io/region", region,
				"aws:RequestTag/karpenter.k8s.aws/ec2nodeclass", "default")}},
		{"tag it while creating", "CreateOwnInstanceProfiles", Request{Action: "iam:TagInstanceProfile",
			Resources: []string{iamARN + "instance-profile/prod_1"},
			Context: ctx(ownedReq, "owned", "aws:RequestTag/topology.kubernetes.io/region", region,
				"aws:RequestTag/karpenter.k8s.aws/ec2nodeclass", "default")}},
		{"create a profile of no node class", "", Request{Action: "iam:CreateInstanceProfile",
			Resources: []string{iamARN + "instance-profile/prod_1"},
			Context:   ctx(ownedReq, "owned", "aws:RequestTag/topology.kubernetes.io/region", region)}},
		{"create a profile for another region", "", Request{Action: "iam:CreateInstanceProfile",
			Resources: []string{iamARN + "instance-profile/prod_1"},
			Context: ctx(ownedReq, "owned", "aws:RequestTag/topology.kubernetes.io/region", "eu-west-1",
				"aws:RequestTag/karpenter.k8s.aws/ec2nodeclass", "default")}},

		// ManageOwnInstanceProfiles: the profiles tagged for the cluster and region.
		{"give the cluster's profile a role", "ManageOwnInstanceProfiles", Request{Action: "iam:AddRoleToInstanceProfile",
			Resources: []string{iamARN + "instance-profile/karpenter/us-east-1/prod/uid/prod_1"},
			Context:   ctx(owned, "owned", "aws:ResourceTag/topology.kubernetes.io/region", region)}},
		{"delete the cluster's profile", "ManageOwnInstanceProfiles", Request{Action: "iam:DeleteInstanceProfile",
			Resources: []string{iamARN + "instance-profile/prod_1"}, Context: ctx(owned, "owned", "aws:ResourceTag/topology.kubernetes.io/region", region)}},
		{"delete the user's untagged profile", "", Request{Action: "iam:DeleteInstanceProfile", Resources: []string{iamARN + "instance-profile/mine"}}},
		{"empty a profile of another region", "", Request{Action: "iam:RemoveRoleFromInstanceProfile",
			Resources: []string{iamARN + "instance-profile/prod_1"}, Context: ctx(owned, "owned", "aws:ResourceTag/topology.kubernetes.io/region", "eu-west-1")}},
		{"delete a profile of another account", "", Request{Action: "iam:DeleteInstanceProfile",
			Resources: []string{"arn:aws:iam::999988887777:instance-profile/prod_1"}, Context: ctx(owned, "owned", "aws:ResourceTag/topology.kubernetes.io/region", region)}},

		// ReadInstanceProfiles: any profile of the account.
		{"read a profile", "ReadInstanceProfiles", Request{Action: "iam:GetInstanceProfile", Resources: []string{iamARN + "instance-profile/anything"}}},
		{"list profiles under a path", "ReadInstanceProfiles", Request{Action: "iam:ListInstanceProfiles",
			Resources: []string{iamARN + "instance-profile/karpenter/us-east-1/prod/uid/"}}},
		{"read a role", "", Request{Action: "iam:GetRole", Resources: []string{iamARN + "role/KarpenterNodeRole-prod"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := ev.Evaluate(tt.req)
			if want := tt.statement != ""; d.Allowed != want || d.Denied {
				t.Fatalf("%+v: %+v, want allowed=%v without an explicit deny", tt.req, d, want)
			}
			if d.Allowed && d.Statement != tt.statement {
				t.Errorf("allowed by %q, want %q", d.Statement, tt.statement)
			}
			if !d.Allowed && d.Resource == "" {
				t.Errorf("refused without naming the resource: %+v", d)
			}
		})
	}
	t.Run("every statement is exercised", func(t *testing.T) {
		seen := map[string]bool{}
		for _, tt := range tests {
			seen[tt.statement] = true
		}
		statements, err := Statements()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range statements {
			if !seen[s.Sid] {
				t.Errorf("no case allowed by statement %q", s.Sid)
			}
		}
	})
}

// TestEvaluationRules checks IAM's rules on small policies: an explicit deny wins, every
// resource must be allowed, Not elements, wildcards within ARN segments, and what each
// condition operator makes of a key the request lacks.
func TestEvaluationRules(t *testing.T) {
	const doc = `{"Version":"2012-10-17","Statement":[
		{"Sid":"All","Effect":"Allow","Action":"s3:*","Resource":"*"},
		{"Sid":"NoDelete","Effect":"Deny","Action":"s3:Delete*","Resource":"arn:aws:s3:::locked/*"},
		{"Sid":"NotIAM","Effect":"Allow","NotAction":["iam:*","s3:*"],"Resource":"arn:aws:ec2:*-1:111122223333:instance/*"},
		{"Sid":"NotAdmin","Effect":"Allow","Action":"sts:AssumeRole","NotResource":"arn:aws:iam::*:role/admin*"},
		{"Sid":"OneChar","Effect":"Allow","Action":"ec2:Describe?nstances","Resource":"*"},
		{"Sid":"OnlyTeamKeys","Effect":"Allow","Action":"ec2:CreateTags","Resource":"*",
		 "Condition":{"ForAllValues:StringEquals":{"aws:TagKeys":["team","Name"]}}},
		{"Sid":"AnyTeamKey","Effect":"Allow","Action":"ec2:DeleteTags","Resource":"*",
		 "Condition":{"ForAnyValue:StringLike":{"aws:TagKeys":"team*"}}},
		{"Sid":"NotProd","Effect":"Allow","Action":"ec2:StopInstances","Resource":"*",
		 "Condition":{"StringNotEquals":{"aws:ResourceTag/env":["prod","staging"]}}},
		{"Sid":"RegionIfGiven","Effect":"Allow","Action":"ec2:StartInstances","Resource":"*",
		 "Condition":{"StringEqualsIfExists":{"aws:RequestedRegion":"us-east-1"}}},
		{"Sid":"Untagged","Effect":"Allow","Action":"ec2:RebootInstances","Resource":"*",
		 "Condition":{"Null":{"aws:ResourceTag/owner":"true"}}},
		{"Sid":"Secure","Effect":"Allow","Action":"sqs:SendMessage","Resource":"*",
		 "Condition":{"Bool":{"aws:SecureTransport":true},"StringEqualsIgnoreCase":{"aws:PrincipalTag/Team":"Core"}}}
	]}`
	ev, err := NewEvaluator([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	instance := "arn:aws:ec2:us-east-1:111122223333:instance/i-1"
	tests := []struct {
		name    string
		req     Request
		allowed bool
		denied  bool
	}{
		{"an allow", Request{Action: "s3:GetObject", Resources: []string{"arn:aws:s3:::locked/a"}}, true, false},
		{"an explicit deny wins", Request{Action: "s3:DeleteObject", Resources: []string{"arn:aws:s3:::locked/a"}}, false, true},
		{"a deny elsewhere is no deny", Request{Action: "s3:DeleteObject", Resources: []string{"arn:aws:s3:::open/a"}}, true, false},
		{"a deny among several resources", Request{Action: "s3:DeleteObject", Resources: []string{"arn:aws:s3:::open/a", "arn:aws:s3:::locked/b"}}, false, true},
		{"NotAction allows what it does not name", Request{Action: "ec2:RunInstances", Resources: []string{instance}}, true, false},
		{"NotAction allows nothing it names", Request{Action: "iam:CreateUser", Resources: []string{instance}}, false, false},
		{"a * inside a segment stays in it", Request{Action: "ec2:RunInstances", Resources: []string{"arn:aws:ec2:us:east-1:111122223333:instance/i-1"}}, false, false},
		{"NotResource", Request{Action: "sts:AssumeRole", Resources: []string{"arn:aws:iam::111122223333:role/reader"}}, true, false},
		{"NotResource refuses what it names", Request{Action: "sts:AssumeRole", Resources: []string{"arn:aws:iam::111122223333:role/admin-1"}}, false, false},
		{"? is one character", Request{Action: "ec2:DescribeInstances"}, true, false},
		{"? is not two", Request{Action: "ec2:DescribeXXnstances"}, false, false},
		{"ForAllValues: every key listed", Request{Action: "ec2:CreateTags", Context: ctx("aws:TagKeys", "team", "aws:TagKeys", "Name")}, true, false},
		{"ForAllValues: one key not listed", Request{Action: "ec2:CreateTags", Context: ctx("aws:TagKeys", "team", "aws:TagKeys", "cost")}, false, false},
		{"ForAllValues: no keys at all", Request{Action: "ec2:CreateTags"}, true, false},
		{"ForAnyValue: one key matches", Request{Action: "ec2:DeleteTags", Context: ctx("aws:TagKeys", "cost", "aws:TagKeys", "team-a")}, true, false},
		{"ForAnyValue: no keys at all", Request{Action: "ec2:DeleteTags"}, false, false},
		{"StringNotEquals: another value", Request{Action: "ec2:StopInstances", Context: ctx("aws:ResourceTag/env", "dev")}, true, false},
		{"StringNotEquals: a listed value", Request{Action: "ec2:StopInstances", Context: ctx("aws:ResourceTag/env", "staging")}, false, false},
		{"StringNotEquals: the key absent", Request{Action: "ec2:StopInstances"}, true, false},
		{"IfExists: the key absent", Request{Action: "ec2:StartInstances"}, true, false},
		{"IfExists: the key present and wrong", Request{Action: "ec2:StartInstances", Context: ctx("aws:RequestedRegion", "eu-west-1")}, false, false},
		{"Null true: the key absent", Request{Action: "ec2:RebootInstances"}, true, false},
		{"Null true: the key present", Request{Action: "ec2:RebootInstances", Context: ctx("aws:ResourceTag/owner", "me")}, false, false},
		{"condition keys are case-insensitive", Request{Action: "ec2:RebootInstances", Context: ctx("AWS:RESOURCETAG/OWNER", "me")}, false, false},
		{"Bool and IgnoreCase", Request{Action: "sqs:SendMessage", Context: ctx("aws:SecureTransport", "true", "aws:PrincipalTag/Team", "core")}, true, false},
		{"Bool false", Request{Action: "sqs:SendMessage", Context: ctx("aws:SecureTransport", "false", "aws:PrincipalTag/Team", "core")}, false, false},
		{"an action no statement names", Request{Action: "dynamodb:GetItem"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := ev.Evaluate(tt.req)
			if d.Allowed != tt.allowed || d.Denied != tt.denied {
				t.Errorf("%+v: %+v, want allowed=%v denied=%v", tt.req, d, tt.allowed, tt.denied)
			}
			if tt.denied && d.Statement != "NoDelete" {
				t.Errorf("denied by %q, want NoDelete", d.Statement)
			}
		})
	}
}

// TestNewEvaluatorRefuses: a document the evaluator cannot decide exactly is refused when it
// is loaded, with what is wrong.
func TestNewEvaluatorRefuses(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"an operator not implemented", `{"Version":"2012-10-17","Statement":[{"Sid":"Old","Effect":"Allow","Action":"ec2:*","Resource":"*",
			"Condition":{"DateLessThan":{"aws:CurrentTime":"2030-01-01T00:00:00Z"}}}]}`, `statement 1 (Old): condition operator "DateLessThan" is not implemented`},
		{"NullIfExists is no operator", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"ec2:*","Resource":"*",
			"Condition":{"NullIfExists":{"aws:TagKeys":"true"}}}}`, `condition operator "NullIfExists" is not implemented`},
		{"a policy variable", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"iam:GetUser","Resource":"arn:aws:iam::1:user/${aws:username}"}}`,
			"policy variables"},
		{"a principal", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"*"}}`, `unknown field "Principal"`},
		{"both Action and NotAction", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","NotAction":"iam:*","Resource":"*"}}`,
			"both Action and NotAction"},
		{"no resource", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*"}}`, "neither Resource nor NotResource"},
		{"an effect in lower case", `{"Version":"2012-10-17","Statement":{"Effect":"allow","Action":"s3:*","Resource":"*"}}`, `effect "allow"`},
		{"an unknown version", `{"Version":"2024-01-01","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*"}}`, `version "2024-01-01"`},
		{"the controller policy unrendered", string(Document()), "render the document first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewEvaluator([]byte(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
