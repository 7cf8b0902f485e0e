package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/nodepilot/nodepilot/aws/policy"
)

func runIAMPolicy(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"iam-policy"}, args...), &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

// printedPolicy is the part of the printed policy the tests read.
type printedPolicy struct {
	Version   string
	Statement []struct {
		Effect   string
		Action   json.RawMessage
		Resource json.RawMessage
	}
}

// actions lists the printed policy's allowed actions as policy.Actions lists the embedded one's.
func (p printedPolicy) actions(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, s := range p.Statement {
		if s.Effect != "Allow" {
			continue
		}
		var many []string
		if err := json.Unmarshal(s.Action, &many); err != nil {
			var one string
			if err := json.Unmarshal(s.Action, &one); err != nil {
				t.Fatalf("action %s: %v", s.Action, err)
			}
			many = []string{one}
		}
		out = append(out, many...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestIAMPolicy(t *testing.T) {
	want, err := policy.Actions()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		// contains are strings the printed policy must hold.
		contains []string
	}{
		{"defaults", []string{"--cluster-name", "prod", "--account", "111122223333", "--region", "eu-west-1"},
			[]string{`"arn:aws:ec2:eu-west-1:*:instance/*"`, `"arn:aws:sqs:eu-west-1:111122223333:prod"`,
				`KarpenterNodeRole-prod`, `kubernetes.io/cluster/prod`}},
		{"China", []string{"--cluster-name", "prod", "--account", "111122223333", "--region", "cn-north-1"},
			[]string{`"arn:aws-cn:ec2:cn-north-1:*:instance/*"`}},
		{"GovCloud", []string{"--cluster-name", "prod", "--account", "111122223333", "--region", "us-gov-west-1"},
			[]string{`"arn:aws-us-gov:ec2:us-gov-west-1:*:instance/*"`}},
		{"partition, queue and role given", []string{"--cluster-name", "prod", "--account", "111122223333", "--region", "us-east-1",
			"--partition", "aws-iso", "--interruption-queue", "prod-events", "--node-role", "nodes"},
			[]string{`"arn:aws-iso:sqs:us-east-1:111122223333:prod-events"`, `role/nodes"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runIAMPolicy(t, tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var p printedPolicy
			if err := json.Unmarshal([]byte(out), &p); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			if p.Version != "2012-10-17" || len(p.Statement) == 0 {
				t.Errorf("version %q, %d statements", p.Version, len(p.Statement))
			}
			if strings.Contains(out, "${") {
				t.Errorf("a placeholder is left:\n%s", out)
			}
			if !strings.HasPrefix(out, "{\n  \"Version\"") {
				t.Errorf("not indented:\n%.80s", out)
			}
			for _, s := range tt.contains {
				if !strings.Contains(out, s) {
					t.Errorf("no %s in:\n%s", s, out)
				}
			}
			if got := p.actions(t); !slices.Equal(got, want) {
				t.Errorf("actions %v, want policy.Actions() %v", got, want)
			}
		})
	}
}

func TestIAMPolicyRefuses(t *testing.T) {
	valid := map[string]string{"--cluster-name": "prod", "--account": "111122223333", "--region": "us-east-1"}
	tests := []struct {
		name, flag, value string
		want              string
	}{
		{"no cluster name", "--cluster-name", "", "--cluster-name is required"},
		{"cluster name with a space", "--cluster-name", "my cluster", `--cluster-name "my cluster": not an EKS cluster name`},
		{"short account", "--account", "12345", `--account "12345": an AWS account ID is 12 digits`},
		{"account with dashes", "--account", "1111-2222-3333", `--account "1111-2222-3333"`},
		{"no account", "--account", "", `--account "": an AWS account ID is 12 digits`},
		{"availability zone for region", "--region", "us-east-1a", `--region "us-east-1a": not an AWS region`},
		{"region in capitals", "--region", "US-EAST-1", `--region "US-EAST-1"`},
		{"partition", "--partition", "amazon", `--partition "amazon": not an AWS partition`},
		{"queue URL", "--interruption-queue", "https://sqs.us-east-1.amazonaws.com/111122223333/prod", "--interruption-queue"},
		{"role ARN", "--node-role", "arn:aws:iam::111122223333:role/nodes", `not its ARN`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var args []string
			for _, flag := range []string{"--cluster-name", "--account", "--region", "--partition", "--interruption-queue", "--node-role"} {
				value, ok := valid[flag]
				if flag == tt.flag {
					value, ok = tt.value, true
				}
				if ok {
					args = append(args, flag, value)
				}
			}
			out, errOut, code := runIAMPolicy(t, args...)
			if code != 1 || out != "" {
				t.Fatalf("exit %d, printed %q", code, out)
			}
			if !strings.Contains(errOut, tt.want) {
				t.Errorf("error %q does not say %q", errOut, tt.want)
			}
		})
	}
}

func TestPartitionOf(t *testing.T) {
	for region, want := range map[string]string{
		"us-east-1": "aws", "eu-west-1": "aws", "ap-southeast-3": "aws", "il-central-1": "aws",
		"cn-north-1": "aws-cn", "cn-northwest-1": "aws-cn",
		"us-gov-west-1": "aws-us-gov", "us-gov-east-1": "aws-us-gov",
		"us-iso-east-1": "aws-iso", "us-isob-east-1": "aws-iso-b", "eu-isoe-west-1": "aws-iso-e",
		"us-isof-south-1": "aws-iso-f", "eusc-de-east-1": "aws-eusc",
	} {
		if got := partitionOf(region); got != want {
			t.Errorf("partitionOf(%s) = %s, want %s", region, got, want)
		}
		if !regionPattern.MatchString(region) {
			t.Errorf("region %s refused", region)
		}
	}
}
