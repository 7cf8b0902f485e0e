package emulator

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// TestHTTPClientKeepsLargeResponses repeats a large response many times: without HTTPClient
// a few of these fail with "use of closed network connection" (see HTTPClient).
func TestHTTPClientKeepsLargeResponses(t *testing.T) {
	_, _, c := startFake(t, Config{})
	for i := range 100 {
		out, err := c.ec2.DescribeInstanceTypeOfferings(ctx(t), &ec2.DescribeInstanceTypeOfferingsInput{LocationType: types.LocationTypeAvailabilityZone})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if len(out.InstanceTypeOfferings) != 1000 {
			t.Fatalf("call %d: %d offerings, want a full page of 1000", i, len(out.InstanceTypeOfferings))
		}
	}
}
