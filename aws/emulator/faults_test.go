package emulator

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"k8s.io/utils/clock"
)

func TestThrottlingIsRecognisedBySDK(t *testing.T) {
	e, _, c := startFake(t, Config{})
	calls := []struct {
		op     string
		call   func() error
		code   string
		status int
	}{
		{"DescribeInstances", func() error { _, err := c.ec2.DescribeInstances(ctx(t), &ec2.DescribeInstancesInput{}); return err }, "RequestLimitExceeded", 503},
		{"GetRole", func() error {
			_, err := c.iam.GetRole(ctx(t), &iam.GetRoleInput{RoleName: aws.String("KarpenterNodeRole")})
			return err
		}, "Throttling", 400},
		{"ReceiveMessage", func() error {
			_, err := c.sqs.ReceiveMessage(ctx(t), &sqs.ReceiveMessageInput{QueueUrl: aws.String(e.QueueURL())})
			return err
		}, "RequestThrottled", 400},
		{"GetParameter", func() error {
			_, err := c.ssm.GetParameter(ctx(t), &ssm.GetParameterInput{Name: aws.String("/aws/service/eks/optimized-ami/1.30/amazon-linux-2/recommended/image_id")})
			return err
		}, "ThrottlingException", 400},
		{"GetProducts", func() error {
			_, err := c.pricing.GetProducts(ctx(t), &pricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2"), MaxResults: aws.Int32(1)})
			return err
		}, "ThrottlingException", 400},
	}
	for _, tc := range calls {
		t.Run(tc.op, func(t *testing.T) {
			if err := e.InjectThrottle(Throttle{Operation: tc.op, Next: 2}); err != nil {
				t.Fatal(err)
			}
			for i := range 2 {
				err := tc.call()
				if apiCode(err) != tc.code {
					t.Fatalf("call %d: %v, want %s", i+1, err, tc.code)
				}
				if retry.IsErrorThrottles(retry.DefaultThrottles).IsErrorThrottle(err) != aws.TrueTernary {
					t.Errorf("the SDK does not take %v for throttling", err)
				}
				var re *awshttp.ResponseError
				if !asError(err, &re) || re.HTTPStatusCode() != tc.status {
					t.Errorf("status %v, want %d", err, tc.status)
				}
			}
			if err := tc.call(); err != nil {
				t.Errorf("third call: %v, want success after the two throttled ones", err)
			}
		})
	}
}

func TestThrottleShareAndFailNext(t *testing.T) {
	e, _, c := startFake(t, Config{Seed: 7})
	describe := func() error {
		_, err := c.ec2.DescribeAvailabilityZones(ctx(t), &ec2.DescribeAvailabilityZonesInput{})
		return err
	}
	if err := e.InjectThrottle(Throttle{Share: 0.5}); err != nil {
		t.Fatal(err)
	}
	throttled := 0
	for range 200 {
		if apiCode(describe()) == "RequestLimitExceeded" {
			throttled++
		}
	}
	if throttled < 70 || throttled > 130 {
		t.Errorf("%d of 200 calls throttled at a share of 0.5", throttled)
	}
	e.ClearFaults()
	if err := e.FailNext("DescribeAvailabilityZones", 2, "InternalError"); err != nil {
		t.Fatal(err)
	}
	if err := e.FailNext("DescribeSubnets", 1, "UnauthorizedOperation"); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"InternalError", "InternalError", ""} {
		err := describe()
		if apiCode(err) != want {
			t.Errorf("call %d: %v, want %q", i+1, err, want)
		}
		var re *awshttp.ResponseError
		if want != "" && (!asError(err, &re) || re.HTTPStatusCode() != http.StatusInternalServerError) {
			t.Errorf("call %d: %v, want HTTP 500", i+1, err)
		}
	}
	if _, err := c.ec2.DescribeSubnets(ctx(t), &ec2.DescribeSubnetsInput{}); apiCode(err) != "UnauthorizedOperation" {
		t.Errorf("DescribeSubnets: %v", err)
	}
	if got := e.CallCounts()["DescribeAvailabilityZones"]; got != 203 {
		t.Errorf("DescribeAvailabilityZones counted %d times, want 203 (failed calls count)", got)
	}
	e.ResetCallCounts()
	if len(e.CallCounts()) != 0 {
		t.Errorf("counts after reset: %v", e.CallCounts())
	}
}

func TestFaultValidation(t *testing.T) {
	e, _, _ := startFake(t, Config{})
	bad := []error{
		e.InjectCapacityError(CapacityFault{Zone: "eu-west-1a"}),
		e.InjectCapacityError(CapacityFault{InstanceType: "z9.huge"}),
		e.InjectCapacityError(CapacityFault{CapacityType: "reserved"}),
		e.InjectCapacityError(CapacityFault{Code: "no spaces allowed"}),
		e.InjectThrottle(Throttle{Operation: "LaunchRocket", Next: 1}),
		e.InjectThrottle(Throttle{Share: 1.5}),
		e.InjectThrottle(Throttle{}),
		e.FailNext("CreateFleet", 0, "InternalError"),
		e.FailNext("Nope", 1, "InternalError"),
		e.SetLatency("Nope", time.Second),
		e.SetLatency("", -time.Second),
		e.SetAnswerDelay("Nope", time.Second),
		e.SetAnswerDelay("", -time.Second),
	}
	for i, err := range bad {
		if err == nil {
			t.Errorf("bad fault %d accepted", i)
		}
	}
	if f := e.Faults(); len(f.Capacity)+len(f.Throttle)+len(f.Fail)+len(f.Latency)+len(f.AnswerDelay) != 0 {
		t.Errorf("faults after refusals: %+v", f)
	}
}

// TestLatency uses the real clock: a call takes at least its latency.
func TestLatency(t *testing.T) {
	e, err := Start(context.Background(), Config{Clock: clock.RealClock{}, CallLatency: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	c := clientsFor(e)
	if err := e.SetLatency("DescribeSubnets", 80*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		call func() error
		min  time.Duration
	}{
		{"configured", func() error { _, err := c.ec2.DescribeAvailabilityZones(ctx(t), nil); return err }, 20 * time.Millisecond},
		{"configured and injected", func() error { _, err := c.ec2.DescribeSubnets(ctx(t), nil); return err }, 100 * time.Millisecond},
	}
	for _, tt := range tests {
		start := time.Now()
		if err := tt.call(); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < tt.min {
			t.Errorf("%s: call took %v, want at least %v", tt.name, d, tt.min)
		}
	}
}

// TestAnswerDelay: a call whose answer is held is done even when its caller gives up first.
func TestAnswerDelay(t *testing.T) {
	e, err := Start(context.Background(), Config{Clock: clock.RealClock{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	c := clientsFor(e)
	subnets, err := c.ec2.DescribeSubnets(ctx(t), nil)
	if err != nil || len(subnets.Subnets) == 0 {
		t.Fatalf("subnets: %v", err)
	}
	id := aws.ToString(subnets.Subnets[0].SubnetId)
	if err := e.SetAnswerDelay("CreateTags", time.Minute); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx(t), 200*time.Millisecond)
	defer cancel()
	_, err = c.ec2.CreateTags(short, &ec2.CreateTagsInput{Resources: []string{id},
		Tags: []ec2types.Tag{{Key: aws.String("held"), Value: aws.String("yes")}}})
	if err == nil {
		t.Fatal("CreateTags answered within 200ms despite a minute's answer delay")
	}
	got, err := c.ec2.DescribeSubnets(ctx(t), &ec2.DescribeSubnetsInput{SubnetIds: []string{id}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(got.Subnets[0].Tags, func(tag ec2types.Tag) bool { return aws.ToString(tag.Key) == "held" }) {
		t.Errorf("subnet %s tags %v: the call whose answer was held was not done", id, got.Subnets[0].Tags)
	}
}
