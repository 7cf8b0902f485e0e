package emulator

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"github.com/nodepilot/nodepilot/kube/apis/upstream"
)

// TestRunInstances: Karpenter dry-runs RunInstances to check its permissions; the real form
// launches from a launch template, with the request's parameters over it, at least MinCount or
// nothing.
func TestRunInstances(t *testing.T) {
	w, _ := newFleetWorld(t, Config{})
	run := func(in *ec2.RunInstancesInput) (*ec2.RunInstancesOutput, error) {
		in.LaunchTemplate = &types.LaunchTemplateSpecification{LaunchTemplateName: aws.String(w.ltAMD)}
		return w.c.ec2.RunInstances(ctx(t), in)
	}
	if _, err := run(&ec2.RunInstancesInput{DryRun: aws.Bool(true), InstanceType: types.InstanceTypeM5Large, MinCount: aws.Int32(1), MaxCount: aws.Int32(1)}); apiCode(err) != "DryRunOperation" {
		t.Fatalf("dry run: %v, want DryRunOperation", err)
	}
	if n := len(w.e.Instances()); n != 0 {
		t.Fatalf("a dry run launched %d instances", n)
	}
	out, err := run(&ec2.RunInstancesInput{InstanceType: types.InstanceTypeM5Large, MinCount: aws.Int32(2), MaxCount: aws.Int32(2),
		SubnetId: aws.String(w.subnets[1].ID), InstanceMarketOptions: &types.InstanceMarketOptionsRequest{MarketType: types.MarketTypeSpot},
		TagSpecifications: []types.TagSpecification{{ResourceType: types.ResourceTypeInstance, Tags: []types.Tag{{Key: aws.String("team"), Value: aws.String("a")}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Instances) != 2 || aws.ToString(out.ReservationId) == "" {
		t.Fatalf("launched %+v, want two instances in one reservation", out)
	}
	for _, inst := range out.Instances {
		tags := map[string]string{}
		for _, tag := range inst.Tags {
			tags[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
		}
		if inst.InstanceType != types.InstanceTypeM5Large || aws.ToString(inst.SubnetId) != w.subnets[1].ID || inst.InstanceLifecycle != types.InstanceLifecycleTypeSpot ||
			tags["team"] != "a" || tags["from-template"] != "yes" || tags["aws:ec2:fleet-id"] != "" {
			t.Errorf("instance %s %s in %s, lifecycle %s, tags %v; want an m5.large spot instance in %s with both tag sets and no fleet",
				aws.ToString(inst.InstanceId), inst.InstanceType, aws.ToString(inst.SubnetId), inst.InstanceLifecycle, tags, w.subnets[1].ID)
		}
	}
	for _, tc := range []struct {
		name string
		in   *ec2.RunInstancesInput
		code string
	}{
		{"fewer at most than at least", &ec2.RunInstancesInput{InstanceType: types.InstanceTypeM5Large, MinCount: aws.Int32(2), MaxCount: aws.Int32(1)}, "InvalidParameterValue"},
		{"an unknown type", &ec2.RunInstancesInput{InstanceType: "m5.huge", MinCount: aws.Int32(1), MaxCount: aws.Int32(1)}, "InvalidParameterValue"},
		{"a type its image cannot run", &ec2.RunInstancesInput{InstanceType: types.InstanceTypeM6gLarge, MinCount: aws.Int32(1), MaxCount: aws.Int32(1)}, "InvalidParameterValue"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := run(tc.in); apiCode(err) != tc.code {
				t.Errorf("%v, want %s", err, tc.code)
			}
		})
	}
	if n := len(w.e.Instances()); n != 2 {
		t.Errorf("%d instances after the refused requests, want the 2 launched", n)
	}
	// At least MinCount or nothing: with one address left, two instances cannot run.
	if err := w.e.SetFreeAddresses(w.subnets[0].ID, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := run(&ec2.RunInstancesInput{InstanceType: types.InstanceTypeM5Large, MinCount: aws.Int32(2), MaxCount: aws.Int32(2),
		SubnetId: aws.String(w.subnets[0].ID)}); apiCode(err) != "InsufficientFreeAddressesInSubnet" {
		t.Errorf("two instances in a subnet with one address: %v, want InsufficientFreeAddressesInSubnet", err)
	}
	live := 0
	for _, inst := range w.e.Instances() {
		if inst.State == StateRunning || inst.State == StatePending {
			live++
		}
	}
	if live != 2 {
		t.Errorf("%d instances live after a refused MinCount, want the 2 from before", live)
	}
}

// TestDescribeInstanceStatus: running instances report passing checks; one impaired reports
// failing reachability since when, and Karpenter's filters find it and only it.
func TestDescribeInstanceStatus(t *testing.T) {
	w, _ := newFleetWorld(t, Config{})
	w.launch(t, types.DefaultTargetCapacityTypeOnDemand, "m5.large") // a healthy one
	sick := w.launch(t, types.DefaultTargetCapacityTypeOnDemand, "m5.large")
	if err := w.e.Impair(sick, CheckSystem); err != nil {
		t.Fatal(err)
	}
	if err := w.e.Impair(sick, "disk"); err == nil {
		t.Error("an unknown status check was accepted")
	}
	all, err := w.c.ec2.DescribeInstanceStatus(ctx(t), &ec2.DescribeInstanceStatusInput{})
	if err != nil || len(all.InstanceStatuses) != 2 {
		t.Fatalf("all statuses: %v, %+v", err, all)
	}
	for _, s := range all.InstanceStatuses {
		want := types.SummaryStatusOk
		if aws.ToString(s.InstanceId) == sick {
			want = types.SummaryStatusImpaired
		}
		if s.SystemStatus.Status != want || s.InstanceStatus.Status != types.SummaryStatusOk {
			t.Errorf("%s: system %s, instance %s; want system %s, instance ok", aws.ToString(s.InstanceId), s.SystemStatus.Status, s.InstanceStatus.Status, want)
		}
	}
	for filter, want := range map[string][]string{"system-status.status": {sick}, "instance-status.status": nil} {
		out, err := w.c.ec2.DescribeInstanceStatus(ctx(t), &ec2.DescribeInstanceStatusInput{Filters: []types.Filter{{Name: aws.String(filter), Values: []string{"impaired"}}}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range out.InstanceStatuses {
			got = append(got, aws.ToString(s.InstanceId))
			if d := s.SystemStatus.Details; len(d) != 1 || d[0].Status != types.StatusTypeFailed || d[0].ImpairedSince == nil {
				t.Errorf("impaired details %+v, want reachability failed with its time", d)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s impaired: %v, want %v", filter, got, want)
		}
	}
	if out, err := w.c.ec2.DescribeInstanceStatus(ctx(t), &ec2.DescribeInstanceStatusInput{Filters: []types.Filter{{Name: aws.String("event.code"), Values: []string{"system-reboot"}}}}); err != nil || len(out.InstanceStatuses) != 0 {
		t.Errorf("scheduled events: %v, %+v; want none", err, out)
	}
	if _, err := w.c.ec2.DescribeInstanceStatus(ctx(t), &ec2.DescribeInstanceStatusInput{Filters: []types.Filter{{Name: aws.String("owner"), Values: []string{"x"}}}}); apiCode(err) != "InvalidParameterValue" {
		t.Errorf("unknown filter: %v, want InvalidParameterValue", err)
	}
}

// TestListInstanceProfilesPages: every instance profile, MaxItems at a time, under a path.
func TestListInstanceProfilesPages(t *testing.T) {
	_, _, c := startFake(t, Config{})
	for i := range 5 {
		if _, err := c.iam.CreateInstanceProfile(ctx(t), &iam.CreateInstanceProfileInput{InstanceProfileName: aws.String(fmt.Sprintf("p%d", i)), Path: aws.String("/karpenter/")}); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	pages := 0
	p := iam.NewListInstanceProfilesPaginator(c.iam, &iam.ListInstanceProfilesInput{PathPrefix: aws.String("/karpenter/"), MaxItems: aws.Int32(2)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, ip := range out.InstanceProfiles {
			names = append(names, aws.ToString(ip.InstanceProfileName))
		}
	}
	if want := []string{"p0", "p1", "p2", "p3", "p4"}; !slices.Equal(names, want) || pages != 3 {
		t.Errorf("listed %v in %d pages, want %v in 3", names, pages, want)
	}
	all, err := c.iam.ListInstanceProfiles(ctx(t), &iam.ListInstanceProfilesInput{})
	if err != nil || len(all.InstanceProfiles) != 6 { // the five and the default one
		t.Errorf("all profiles: %v, %d, want 6", err, len(all.InstanceProfiles))
	}
}

// TestNoReservationsOrPlacementGroups: the account has none; an id asked for is not found.
func TestNoReservationsOrPlacementGroups(t *testing.T) {
	_, _, c := startFake(t, Config{})
	if out, err := c.ec2.DescribeCapacityReservations(ctx(t), &ec2.DescribeCapacityReservationsInput{
		Filters: []types.Filter{{Name: aws.String("tag:karpenter.sh/discovery"), Values: []string{"my-cluster"}}}}); err != nil || len(out.CapacityReservations) != 0 {
		t.Errorf("reservations: %v, %+v", err, out)
	}
	if _, err := c.ec2.DescribeCapacityReservations(ctx(t), &ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{"cr-0123"}}); apiCode(err) != "InvalidCapacityReservationId.NotFound" {
		t.Errorf("unknown reservation: %v", err)
	}
	if out, err := c.ec2.DescribePlacementGroups(ctx(t), &ec2.DescribePlacementGroupsInput{}); err != nil || len(out.PlacementGroups) != 0 {
		t.Errorf("placement groups: %v, %+v", err, out)
	}
	if _, err := c.ec2.DescribePlacementGroups(ctx(t), &ec2.DescribePlacementGroupsInput{GroupNames: []string{"pg"}}); apiCode(err) != "InvalidPlacementGroup.Unknown" {
		t.Errorf("unknown placement group: %v", err)
	}
}

// TestEKSDescribeCluster: the configured cluster, as Karpenter reads it (service CIDR, endpoint,
// version); any other name is not found.
func TestEKSDescribeCluster(t *testing.T) {
	e, _, _ := startFake(t, Config{ClusterName: "demo", Cluster: EKSCluster{Endpoint: "https://127.0.0.1:6443", CAData: "Y2E=", Version: "1.34", ServiceCIDR: "10.96.0.0/12"}})
	cfg := sdkConfig(e.Region())
	cfg.HTTPClient = e.HTTPClient()
	c := eks.NewFromConfig(cfg, func(o *eks.Options) { o.BaseEndpoint = aws.String(e.Endpoint()) })
	out, err := c.DescribeCluster(ctx(t), &eks.DescribeClusterInput{Name: aws.String("demo")})
	if err != nil {
		t.Fatal(err)
	}
	cl := out.Cluster
	if aws.ToString(cl.Endpoint) != "https://127.0.0.1:6443" || aws.ToString(cl.Version) != "1.34" || cl.Status != ekstypes.ClusterStatusActive ||
		aws.ToString(cl.KubernetesNetworkConfig.ServiceIpv4Cidr) != "10.96.0.0/12" || aws.ToString(cl.CertificateAuthority.Data) != "Y2E=" ||
		len(cl.ResourcesVpcConfig.SubnetIds) != 3 {
		t.Errorf("cluster %+v", cl)
	}
	var notFound *ekstypes.ResourceNotFoundException
	if _, err := c.DescribeCluster(ctx(t), &eks.DescribeClusterInput{Name: aws.String("other")}); !errors.As(err, &notFound) {
		t.Errorf("another cluster: %v, want ResourceNotFoundException", err)
	}
	if n := e.CallCounts()["DescribeCluster"]; n != 2 {
		t.Errorf("%d DescribeCluster calls counted, want 2", n)
	}
}

// TestServesWhatKarpenterCalls: every AWS operation Karpenter's AWS provider declares a client
// for is served, by the service that declares it; the two it does not call by default are
// named with why.
func TestServesWhatKarpenterCalls(t *testing.T) {
	facts := upstream.Load(t)
	notCalled := map[string]string{
		"ARCZonalShift/GetManagedResource": "only with --enable-zonal-shift, which the emulator has no zonal shift for",
		"TimestreamWrite/WriteRecords":     "declared, called nowhere in Karpenter's code",
	}
	services := map[string]service{"EC2": serviceEC2, "IAM": serviceIAM, "EKS": serviceEKS, "Pricing": servicePricing, "SSM": serviceSSM, "SQS": serviceSQS}
	served := 0
	for _, op := range facts.AWSOperations {
		key := op.Service + "/" + op.Operation
		if why, ok := notCalled[key]; ok {
			t.Logf("not served: %s (%s)", key, why)
			continue
		}
		svc, ok := operationService(op.Operation)
		switch {
		case !ok:
			t.Errorf("%s: Karpenter %s calls it, the emulator does not serve it", key, facts.Version)
		case svc != services[op.Service]:
			t.Errorf("%s: served as %s", key, svc)
		default:
			served++
		}
	}
	t.Logf("AWS operations of Karpenter %s served: %d of %d", facts.Version, served, len(facts.AWSOperations))
}
