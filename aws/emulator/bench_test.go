package emulator

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
)

// serve runs one query request through the emulator's handler, without a network.
func serve(e *Emulator, body string) int {
	w := httptest.NewRecorder()
	r := httptest.NewRequest("POST", "/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	e.ServeHTTP(w, r)
	return w.Code
}

func BenchmarkDescribeInstanceTypesPage(b *testing.B) {
	e, _, _ := startFakeB(b, Config{})
	for b.Loop() {
		if code := serve(e, "Action=DescribeInstanceTypes&Version=2016-11-15&MaxResults=100"); code != 200 {
			b.Fatal(code)
		}
	}
}

func BenchmarkDescribeSpotPriceHistoryLatest(b *testing.B) {
	e, _, _ := startFakeB(b, Config{})
	for b.Loop() {
		if code := serve(e, "Action=DescribeSpotPriceHistory&Version=2016-11-15&ProductDescription.1=Linux%2FUNIX"); code != 200 {
			b.Fatal(code)
		}
	}
}

func TestAllocateIPWalksTheBlock(t *testing.T) {
	e, _, _ := startFake(t, Config{})
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.world.subnets[1]
	got := []string{s.allocateIP().String(), s.allocateIP().String()}
	s.next = s.size // wraps to the first address again
	got = append(got, s.allocateIP().String())
	if want := []string{"10.0.32.4", "10.0.32.5", "10.0.32.4"}; !equalStrings(got, want) {
		t.Errorf("addresses %v, want %v", got, want)
	}
}

// BenchmarkManyInstances launches 5,000 instances through the SDK in five fleets a few
// seconds apart, then times small DescribeInstances calls while the fleets boot and some
// instances shut down, reporting the launch time and the calls' 99th percentile.
func BenchmarkManyInstances(b *testing.B) {
	const fleets, perFleet, calls = 5, 1000, 400
	var latencies []time.Duration
	var launch time.Duration
	for b.Loop() {
		e, fc, c := startFakeB(b, Config{BootDelay: 15 * time.Second, ShutdownDelay: 5 * time.Second, InstanceLimit: fleets * perFleet})
		bg := context.Background()
		p, err := c.ssm.GetParameter(bg, &ssm.GetParameterInput{Name: aws.String("/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id")})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.ec2.CreateLaunchTemplate(bg, &ec2.CreateLaunchTemplateInput{LaunchTemplateName: aws.String("bench"),
			LaunchTemplateData: &types.RequestLaunchTemplateData{ImageId: p.Parameter.Value}}); err != nil {
			b.Fatal(err)
		}
		var overrides []types.FleetLaunchTemplateOverridesRequest
		for _, s := range e.Subnets() {
			overrides = append(overrides, types.FleetLaunchTemplateOverridesRequest{InstanceType: "m5.large", SubnetId: aws.String(s.ID)})
		}
		var ids []string
		start := time.Now()
		for range fleets {
			out, err := c.ec2.CreateFleet(bg, &ec2.CreateFleetInput{Type: types.FleetTypeInstant,
				LaunchTemplateConfigs: []types.FleetLaunchTemplateConfigRequest{{
					LaunchTemplateSpecification: &types.FleetLaunchTemplateSpecificationRequest{LaunchTemplateName: aws.String("bench")},
					Overrides:                   overrides}},
				TargetCapacitySpecification: &types.TargetCapacitySpecificationRequest{TotalTargetCapacity: aws.Int32(perFleet),
					DefaultTargetCapacityType: types.DefaultTargetCapacityTypeOnDemand}})
			if err != nil || len(out.Errors) != 0 {
				b.Fatalf("CreateFleet: %v %v", err, out.Errors)
			}
			for _, fi := range out.Instances {
				ids = append(ids, fi.InstanceIds...)
			}
			fc.Step(3 * time.Second)
		}
		launch += time.Since(start)
		for i := range calls {
			fc.Step(100 * time.Millisecond)
			if i%10 == 0 {
				if _, err := c.ec2.TerminateInstances(bg, &ec2.TerminateInstancesInput{InstanceIds: ids[i : i+10]}); err != nil {
					b.Fatal(err)
				}
			}
			t0 := time.Now()
			_, err := c.ec2.DescribeInstances(bg, &ec2.DescribeInstancesInput{Filters: []types.Filter{{Name: aws.String("instance-id"), Values: []string{ids[len(ids)-1-i]}}}})
			latencies = append(latencies, time.Since(t0))
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	slices.Sort(latencies)
	p99 := latencies[(len(latencies)*99+99)/100-1]
	b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(launch.Milliseconds())/float64(b.N), "launch-ms")
}
