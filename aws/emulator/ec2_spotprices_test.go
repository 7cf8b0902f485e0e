package emulator

import (
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodepilot/nodepilot/aws/catalog"
)

// latestSpotPrices reads every type and zone's price as Karpenter does.
func latestSpotPrices(t *testing.T, c clients, now time.Time) map[string]float64 {
	t.Helper()
	p := ec2.NewDescribeSpotPriceHistoryPaginator(c.ec2, &ec2.DescribeSpotPriceHistoryInput{
		ProductDescriptions: []string{"Linux/UNIX", "Linux/UNIX (Amazon VPC)"}, StartTime: aws.Time(now)})
	out := map[string]float64{}
	for p.HasMorePages() {
		page, err := p.NextPage(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, sp := range page.SpotPriceHistory {
			key := string(sp.InstanceType) + "/" + *sp.AvailabilityZone
			if _, dup := out[key]; dup {
				t.Fatalf("%s twice", key)
			}
			if sp.Timestamp.After(now) || sp.ProductDescription != "Linux/UNIX" {
				t.Fatalf("%s: timestamp %v description %s", key, sp.Timestamp, sp.ProductDescription)
			}
			v, err := strconv.ParseFloat(*sp.SpotPrice, 64)
			if err != nil {
				t.Fatal(err)
			}
			out[key] = v
		}
	}
	return out
}

func TestSpotPricesLatestPerTypeAndZone(t *testing.T) {
	e, fc, c := startFake(t, Config{Seed: 42})
	cat := loadCatalog(t)
	offered := 0
	for _, en := range cat.Entries {
		for _, z := range en.Zones {
			if contains([]string{"us-east-1a", "us-east-1b", "us-east-1c"}, z) {
				offered++
			}
		}
	}
	first := latestSpotPrices(t, c, fc.Now())
	if len(first) != offered {
		t.Fatalf("%d prices, want one per offered type and zone (%d)", len(first), offered)
	}
	for _, en := range cat.Entries {
		for _, z := range en.Zones {
			p, ok := first[en.Name+"/"+z]
			if !ok {
				continue
			}
			base := catalog.SyntheticSpotPrice(en.Name, z, en.OnDemandPrice)
			if p <= 0 || p > en.OnDemandPrice*0.95+1e-6 || p < base*0.5-1e-6 {
				t.Errorf("%s/%s: %v, base %v, on-demand %v", en.Name, z, p, base, en.OnDemandPrice)
			}
		}
	}
	// Prices move from step to step and stay put within one.
	fc.Step(5 * time.Minute)
	moved := 0
	for range 6 {
		fc.Step(10 * time.Minute)
		next := latestSpotPrices(t, c, fc.Now())
		for k, v := range next {
			if v != first[k] {
				moved++
			}
		}
	}
	if moved < offered {
		t.Errorf("only %d price changes over six steps of %d pools", moved, offered)
	}
	// The same seed gives the same prices at the same time; another seed other ones.
	same, _, cs := startFake(t, Config{Seed: 42})
	other, _, co := startFake(t, Config{Seed: 43})
	a, b := latestSpotPrices(t, cs, testStart), latestSpotPrices(t, co, testStart)
	differ := 0
	for k, v := range first {
		if a[k] != v {
			t.Fatalf("%s: %v with the same seed, want %v", k, a[k], v)
		}
		if b[k] != v {
			differ++
		}
	}
	if differ < offered/2 {
		t.Errorf("another seed changed only %d of %d prices", differ, offered)
	}
	if p, ok := e.SpotPrice("m5.large", "us-east-1a"); !ok || p <= 0 {
		t.Errorf("SpotPrice: %v %v", p, ok)
	}
	_, _ = same, other
}

func TestDescribeSpotPriceHistoryQueries(t *testing.T) {
	_, fc, c := startFake(t, Config{})
	now := fc.Now()
	tests := []struct {
		name string
		in   *ec2.DescribeSpotPriceHistoryInput
		want int
	}{
		{"one type", &ec2.DescribeSpotPriceHistoryInput{InstanceTypes: []types.InstanceType{"m5.large"}}, 3},
		{"one type and zone", &ec2.DescribeSpotPriceHistoryInput{InstanceTypes: []types.InstanceType{"m5.large"}, AvailabilityZone: aws.String("us-east-1b")}, 1},
		{"filters", &ec2.DescribeSpotPriceHistoryInput{Filters: []types.Filter{
			{Name: aws.String("instance-type"), Values: []string{"m5.large", "c5.large"}},
			{Name: aws.String("availability-zone"), Values: []string{"us-east-1a"}}}}, 2},
		{"an hour of history", &ec2.DescribeSpotPriceHistoryInput{InstanceTypes: []types.InstanceType{"m5.large"}, AvailabilityZone: aws.String("us-east-1a"),
			StartTime: aws.Time(now.Add(-time.Hour)), EndTime: aws.Time(now)}, 7},
		{"windows", &ec2.DescribeSpotPriceHistoryInput{ProductDescriptions: []string{"Windows"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := c.ec2.DescribeSpotPriceHistory(ctx(t), tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(out.SpotPriceHistory) != tt.want {
				t.Errorf("%d records, want %d", len(out.SpotPriceHistory), tt.want)
			}
			for i := 1; i < len(out.SpotPriceHistory); i++ {
				if out.SpotPriceHistory[i].Timestamp.After(*out.SpotPriceHistory[i-1].Timestamp) {
					t.Errorf("records not newest first")
				}
			}
		})
	}
}

func TestHeldSpotPricesAreOneMarket(t *testing.T) {
	_, fc, c := startFake(t, Config{Seed: 42, HoldSpotPrices: true})
	first := latestSpotPrices(t, c, fc.Now())
	_, _, mc := startFake(t, Config{Seed: 42})
	moving := latestSpotPrices(t, mc, testStart)
	differ := 0
	for k, v := range moving {
		if first[k] != v {
			differ++
		}
	}
	if len(first) != len(moving) || differ == 0 {
		t.Fatalf("held prices (%d) are the moving market's (%d, %d differ): the test shows nothing", len(first), len(moving), differ)
	}
	for step := range 6 {
		fc.Step(10 * time.Minute)
		for k, v := range latestSpotPrices(t, c, fc.Now()) {
			if first[k] != v {
				t.Fatalf("step %d: %s moved from %v to %v", step+1, k, first[k], v)
			}
		}
	}
}
