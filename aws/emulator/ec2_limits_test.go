package emulator

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// TestCreateFleetTargetsDoNotOverflow sends counts the SDK's int32 cannot carry, so the
// query goes to the handler directly.
func TestCreateFleetTargetsDoNotOverflow(t *testing.T) {
	for _, tc := range []struct {
		name, onDemand, spot, def string
	}{
		{"two to the 62 each, on-demand default", "4611686018427387904", "4611686018427387904", "on-demand"},
		{"two to the 62 each, spot default", "4611686018427387904", "4611686018427387904", "spot"},
		{"two to the 62 each, no default", "4611686018427387904", "4611686018427387904", ""},
		{"past int64", "9223372036854775808", "0", "on-demand"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := newFleetWorld(t, Config{})
			v := url.Values{"Action": {"CreateFleet"}, "Version": {"2016-11-15"}, "Type": {"instant"},
				"TargetCapacitySpecification.TotalTargetCapacity":                        {"1"},
				"TargetCapacitySpecification.OnDemandTargetCapacity":                     {tc.onDemand},
				"TargetCapacitySpecification.SpotTargetCapacity":                         {tc.spot},
				"TargetCapacitySpecification.DefaultTargetCapacityType":                  {tc.def},
				"LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName": {w.ltAMD},
				"LaunchTemplateConfigs.1.Overrides.1.InstanceType":                       {"m5.large"},
			}
			rec := httptest.NewRecorder()
			req := httptest.NewRequest("POST", "/", strings.NewReader(v.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			w.e.ServeHTTP(rec, req)
			if rec.Code != 400 || !strings.Contains(rec.Body.String(), "<Code>InvalidParameterValue</Code>") {
				t.Errorf("got %d %s, want 400 InvalidParameterValue", rec.Code, rec.Body)
			}
			if n := len(w.e.Instances()); n != 0 {
				t.Errorf("%d instances launched, want none", n)
			}
		})
	}
}

func TestCreateFleetInstanceLimit(t *testing.T) {
	for _, tc := range []struct {
		name          string
		first, second int32
		wantCode      string
		wantInstances int
	}{
		{"within the limit", 2, 1, "", 3},
		{"past the limit", 2, 2, "InstanceLimitExceeded", 2},
		{"one fleet past the limit", 4, 0, "InstanceLimitExceeded", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := newFleetWorld(t, Config{InstanceLimit: 3})
			var codes []string
			for _, n := range []int32{tc.first, tc.second} {
				if n == 0 {
					continue
				}
				in := w.fleet(types.DefaultTargetCapacityTypeOnDemand, w.ltAMD, "", w.overrides("m5.large"))
				in.TargetCapacitySpecification.TotalTargetCapacity = aws.Int32(n)
				out, err := w.c.ec2.CreateFleet(ctx(t), in)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range out.Errors {
					codes = append(codes, aws.ToString(e.ErrorCode))
				}
			}
			if tc.wantCode == "" && len(codes) != 0 || tc.wantCode != "" && (len(codes) != 1 || codes[0] != tc.wantCode) {
				t.Errorf("fleet errors %v, want %q", codes, tc.wantCode)
			}
			if n := len(w.e.Instances()); n != tc.wantInstances {
				t.Errorf("%d instances, want %d", n, tc.wantInstances)
			}
		})
	}
}

// TestStateChangesCostTheChangedInstances counts the schedule entries the lifecycle examines
// while a few of many instances shut down: it must not grow with the instances that stay put.
func TestStateChangesCostTheChangedInstances(t *testing.T) {
	for _, n := range []int32{10, 1000} {
		w, step := newFleetWorld(t, Config{BootDelay: time.Second, ShutdownDelay: time.Second})
		in := w.fleet(types.DefaultTargetCapacityTypeOnDemand, w.ltAMD, "", w.overrides("m5.large"))
		in.TargetCapacitySpecification.TotalTargetCapacity = aws.Int32(n)
		out, err := w.c.ec2.CreateFleet(ctx(t), in)
		if err != nil || len(out.Instances) == 0 {
			t.Fatalf("CreateFleet: %v", err)
		}
		step(time.Second)
		w.e.Instances() // every instance is running
		w.e.mu.Lock()
		w.e.visits = 0
		w.e.mu.Unlock()
		ids := out.Instances[0].InstanceIds[:3]
		if _, err := w.c.ec2.TerminateInstances(ctx(t), &ec2.TerminateInstancesInput{InstanceIds: ids}); err != nil {
			t.Fatal(err)
		}
		step(time.Second)
		got := w.e.Instances()
		w.e.mu.Lock()
		visits := w.e.visits
		w.e.mu.Unlock()
		terminated := 0
		for _, inst := range got {
			if inst.State == StateTerminated {
				terminated++
			}
		}
		// Each call looks at the earliest entry and each of the 3 changes leaves a stale one:
		// a few dozen at most, however many instances run.
		if terminated != 3 || visits > 50 {
			t.Errorf("%d instances: %d terminated after %d schedule visits, want 3 after at most 50", n, terminated, visits)
		}
	}
}
