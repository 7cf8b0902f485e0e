package aws

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nodepilot/nodepilot/aws/policy"
)

// calledActions are the IAM actions of every operation the provider's client interfaces list.
func calledActions() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for prefix, iface := range map[string]reflect.Type{
		"ec2":     reflect.TypeFor[EC2API](),
		"sqs":     reflect.TypeFor[SQSAPI](),
		"ssm":     reflect.TypeFor[SSMAPI](),
		"pricing": reflect.TypeFor[PricingAPI](),
		"iam":     reflect.TypeFor[IAMAPI](),
	} {
		for i := range iface.NumMethod() {
			out[prefix+":"+iface.Method(i).Name] = iface
		}
	}
	return out
}

// impliedActions are allowed without being called: AWS checks them on behalf of a call.
func impliedActions() map[string]string {
	return map[string]string{
		"ec2:RunInstances":       "CreateFleet launches its instances through RunInstances",
		"ec2:CreateTags":         "CreateFleet and CreateLaunchTemplate tag what they create",
		"iam:PassRole":           "launching with an instance profile passes the node role to EC2",
		"iam:TagInstanceProfile": "CreateInstanceProfile tags the profile it creates",
	}
}

// TestPolicyAllowsExactlyWhatTheCodeCalls checks the IAM policy against the client interfaces,
// which are the provider's only way to call AWS: every operation they list is allowed, and
// nothing else is, except the actions AWS checks on behalf of those calls.
func TestPolicyAllowsExactlyWhatTheCodeCalls(t *testing.T) {
	allowed, err := policy.Actions()
	if err != nil {
		t.Fatal(err)
	}
	called := calledActions()
	implied := impliedActions()
	for action := range called {
		if !slices.Contains(allowed, action) {
			t.Errorf("the code calls %s, which %s does not allow", action, PolicyFile)
		}
	}
	for _, action := range allowed {
		if _, ok := called[action]; !ok && implied[action] == "" {
			t.Errorf("%s allows %s, which the code never calls", PolicyFile, action)
		}
	}
	for action, why := range implied {
		if !slices.Contains(allowed, action) {
			t.Errorf("%s does not allow %s (%s)", PolicyFile, action, why)
		}
	}
}

// TestEveryListedOperationIsCalled reads the package's Go source and checks that each
// operation of the client interfaces is called somewhere (directly, or through its paginator),
// so that the interfaces, and with them the policy, grant nothing unused.
func TestEveryListedOperationIsCalled(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "clients.go" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(data)
	}
	code := src.String()
	for action := range calledActions() {
		op := action[strings.IndexByte(action, ':')+1:]
		if !strings.Contains(code, "."+op+"(") && !strings.Contains(code, "New"+op+"Paginator(") {
			t.Errorf("%s is listed in the client interfaces but never called", action)
		}
	}
}

func TestPolicyRenders(t *testing.T) {
	doc, err := policy.Render(policy.Params{Partition: "aws", Region: "us-east-1", AccountID: "123456789012",
		ClusterName: "demo", QueueName: "demo-interruptions", NodeRole: "demo-nodes"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(doc), "${") {
		t.Errorf("placeholders left in the rendered policy:\n%s", doc)
	}
	if _, err := policy.Render(policy.Params{Partition: "aws"}); err == nil || !strings.Contains(err.Error(), "CLUSTER_NAME") {
		t.Errorf("rendering without values: %v, want an error naming CLUSTER_NAME", err)
	}
}
