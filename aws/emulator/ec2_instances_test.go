package emulator

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// launch launches one instance of typeName through CreateFleet and returns its id.
func (w *fleetWorld) launch(t *testing.T, ct types.DefaultTargetCapacityType, typeName string) string {
	t.Helper()
	out, err := w.c.ec2.CreateFleet(ctx(t), w.fleet(ct, w.ltAMD, "", w.overrides(typeName)))
	if err != nil || len(out.Instances) != 1 {
		t.Fatalf("CreateFleet: %v, %+v", err, out)
	}
	return out.Instances[0].InstanceIds[0]
}

func (w *fleetWorld) state(t *testing.T, id string) types.InstanceStateName {
	t.Helper()
	out, err := w.c.ec2.DescribeInstances(ctx(t), &ec2.DescribeInstancesInput{InstanceIds: []string{id}})
	if err != nil {
		t.Fatalf("DescribeInstances %s: %v", id, err)
	}
	return out.Reservations[0].Instances[0].State.Name
}

func TestInstanceLifecycle(t *testing.T) {
	w, step := newFleetWorld(t, Config{BootDelay: 30 * time.Second, ShutdownDelay: 5 * time.Second, TerminatedRetention: time.Hour, FreeAddresses: 10})
	id := w.launch(t, types.DefaultTargetCapacityTypeOnDemand, "m5.large")
	zone := w.e.Instances()[0].Zone
	free := func() int {
		for _, s := range w.e.Subnets() {
			if s.Zone == zone {
				return s.FreeAddresses
			}
		}
		return -1
	}
	steps := []struct {
		advance time.Duration
		do      func()
		want    types.InstanceStateName
		free    int
	}{
		{0, nil, types.InstanceStateNamePending, 9},
		{29 * time.Second, nil, types.InstanceStateNamePending, 9},
		{time.Second, nil, types.InstanceStateNameRunning, 9},
		{time.Minute, func() {
			out, err := w.c.ec2.TerminateInstances(ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{id}})
			if err != nil {
				t.Fatal(err)
			}
			sc := out.TerminatingInstances[0]
			if sc.PreviousState.Name != types.InstanceStateNameRunning || sc.CurrentState.Name != types.InstanceStateNameShuttingDown || *sc.CurrentState.Code != 32 {
				t.Errorf("terminate: %s -> %s (%d)", sc.PreviousState.Name, sc.CurrentState.Name, *sc.CurrentState.Code)
			}
		}, types.InstanceStateNameShuttingDown, 9},
		{5 * time.Second, nil, types.InstanceStateNameTerminated, 10},
		{59 * time.Minute, nil, types.InstanceStateNameTerminated, 10},
	}
	for i, s := range steps {
		step(s.advance)
		if s.do != nil {
			s.do()
		}
		if got := w.state(t, id); got != s.want {
			t.Fatalf("step %d: state %s, want %s", i, got, s.want)
		}
		if got := free(); got != s.free {
			t.Errorf("step %d: %d free addresses, want %d", i, got, s.free)
		}
	}
	// Terminating again is fine; a terminated instance has no network any more.
	out, err := w.c.ec2.TerminateInstances(ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{id}})
	if err != nil || out.TerminatingInstances[0].CurrentState.Name != types.InstanceStateNameTerminated {
		t.Errorf("terminate a terminated instance: %v %+v", err, out)
	}
	d, _ := w.c.ec2.DescribeInstances(ctx(t), &ec2.DescribeInstancesInput{InstanceIds: []string{id}})
	if inst := d.Reservations[0].Instances[0]; inst.PrivateIpAddress != nil || *inst.StateReason.Code != "Client.UserInitiatedShutdown" {
		t.Errorf("terminated instance: ip %v reason %v", inst.PrivateIpAddress, inst.StateReason)
	}
	step(time.Minute) // past the retention: the instance is gone
	if _, err := w.c.ec2.DescribeInstances(ctx(t), &ec2.DescribeInstancesInput{InstanceIds: []string{id}}); apiCode(err) != "InvalidInstanceID.NotFound" {
		t.Errorf("after retention: %v, want InvalidInstanceID.NotFound", err)
	}
	if _, err := w.c.ec2.TerminateInstances(ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{id}}); apiCode(err) != "InvalidInstanceID.NotFound" {
		t.Errorf("terminate after retention: %v, want InvalidInstanceID.NotFound", err)
	}
}

func TestTerminateInstancesBatch(t *testing.T) {
	w, _ := newFleetWorld(t, Config{})
	a := w.launch(t, types.DefaultTargetCapacityTypeSpot, "m5.large")
	b := w.launch(t, types.DefaultTargetCapacityTypeOnDemand, "c5.large")
	tests := []struct {
		name string
		ids  []string
		code string
	}{
		{"one unknown fails the batch", []string{a, "i-0123456789abcdef0"}, "InvalidInstanceID.NotFound"},
		{"malformed", []string{"instance-1"}, "InvalidInstanceID.Malformed"},
		{"both", []string{a, b}, ""},
		{"again", []string{a, b}, ""},
	}
	for _, tt := range tests {
		out, err := w.c.ec2.TerminateInstances(ctx(t), &ec2.TerminateInstancesInput{InstanceIds: tt.ids})
		if apiCode(err) != tt.code {
			t.Fatalf("%s: %v, want code %q", tt.name, err, tt.code)
		}
		if tt.code == "" && len(out.TerminatingInstances) != 2 {
			t.Errorf("%s: %d state changes", tt.name, len(out.TerminatingInstances))
		}
		if tt.code != "" && w.state(t, a) != types.InstanceStateNameRunning {
			t.Errorf("%s: a failed batch terminated %s", tt.name, a)
		}
	}
}

func TestDescribeInstancesFiltersAndPages(t *testing.T) {
	w, _ := newFleetWorld(t, Config{})
	var ids []string
	for i := range 12 {
		ct := types.DefaultTargetCapacityTypeSpot
		if i%3 == 0 {
			ct = types.DefaultTargetCapacityTypeOnDemand
		}
		ids = append(ids, w.launch(t, ct, "m5.large"))
	}
	if _, err := w.c.ec2.CreateTags(ctx(t), &ec2.CreateTagsInput{Resources: ids[:2], Tags: []types.Tag{{Key: aws.String("karpenter.sh/nodeclaim"), Value: aws.String("default-x")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.c.ec2.TerminateInstances(ctx(t), &ec2.TerminateInstancesInput{InstanceIds: ids[11:]}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		filters []types.Filter
		want    int
	}{
		{"all", nil, 12},
		{"tag key", []types.Filter{{Name: aws.String("tag-key"), Values: []string{"karpenter.sh/nodeclaim"}}}, 2},
		{"tag value", []types.Filter{{Name: aws.String("tag:karpenter.sh/nodepool"), Values: []string{"default"}}}, 12},
		{"live states", []types.Filter{{Name: aws.String("instance-state-name"), Values: []string{"pending", "running", "stopping", "stopped", "shutting-down"}}}, 11},
		{"spot", []types.Filter{{Name: aws.String("instance-lifecycle"), Values: []string{"spot"}}}, 8},
		{"by id", []types.Filter{{Name: aws.String("instance-id"), Values: []string{ids[3], ids[4]}}}, 2},
		{"type and zone", []types.Filter{{Name: aws.String("instance-type"), Values: []string{"m5.large"}}, {Name: aws.String("availability-zone"), Values: []string{"us-east-1*"}}}, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ec2.NewDescribeInstancesPaginator(w.c.ec2, &ec2.DescribeInstancesInput{Filters: tt.filters, MaxResults: aws.Int32(5)})
			got, pages := 0, 0
			for p.HasMorePages() {
				out, err := p.NextPage(ctx(t))
				if err != nil {
					t.Fatal(err)
				}
				pages++
				for _, r := range out.Reservations {
					got += len(r.Instances)
				}
			}
			if got != tt.want {
				t.Errorf("%d instances, want %d", got, tt.want)
			}
			if wantPages := max(1, (tt.want+4)/5); pages != wantPages {
				t.Errorf("%d pages, want %d", pages, wantPages)
			}
		})
	}
	if _, err := w.c.ec2.DescribeInstances(ctx(t), &ec2.DescribeInstancesInput{InstanceIds: ids[:1], MaxResults: aws.Int32(5)}); apiCode(err) != "InvalidParameterCombination" {
		t.Errorf("ids with MaxResults: %v", err)
	}
}

func TestCreateTags(t *testing.T) {
	w, _ := newFleetWorld(t, Config{})
	id := w.launch(t, types.DefaultTargetCapacityTypeSpot, "m5.large")
	tests := []struct {
		name      string
		resources []string
		key       string
		code      string
	}{
		{"instance", []string{id}, "Name", ""},
		{"unknown instance", []string{"i-0123456789abcdef0"}, "Name", "InvalidInstanceID.NotFound"},
		{"subnet", []string{w.subnets[0].ID}, "team", ""},
		{"reserved prefix", []string{id}, "aws:secret", "InvalidParameterValue"},
		{"unknown kind", []string{"bucket-1"}, "Name", "InvalidID"},
	}
	for _, tt := range tests {
		_, err := w.c.ec2.CreateTags(ctx(t), &ec2.CreateTagsInput{Resources: tt.resources, Tags: []types.Tag{{Key: aws.String(tt.key), Value: aws.String("v")}}})
		if apiCode(err) != tt.code {
			t.Errorf("%s: %v, want code %q", tt.name, err, tt.code)
		}
	}
	if got := w.e.Instances()[0].Tags["Name"]; got != "v" {
		t.Errorf("Name tag %q after CreateTags, want v", got)
	}
}

func TestInstancesLists(t *testing.T) {
	w, _ := newFleetWorld(t, Config{BootDelay: time.Minute})
	id := w.launch(t, types.DefaultTargetCapacityTypeSpot, "m6i.large")
	got := w.e.Instances()
	if len(got) != 1 {
		t.Fatalf("%d instances", len(got))
	}
	i := got[0]
	if i.ID != id || i.InstanceType != "m6i.large" || i.CapacityType != "spot" || i.State != "pending" || i.Arch != "amd64" ||
		i.Region != "us-east-1" || i.PrivateDNSName == "" || i.LaunchTime != testStart || i.Tags["karpenter.sh/nodepool"] != "default" {
		t.Errorf("instance %+v", i)
	}
}
