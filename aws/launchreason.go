package aws

import "strings"

// launchReasons name a failed launch as Karpenter's AWS provider does, in the Launched
// condition's reason and the launch failure metric: the first entry whose every fragment EC2's
// error contains. Permission errors come first, since they may mention other codes; quota and
// subnet errors last. Anything else, capacity errors included, is LaunchFailed.
var launchReasons = []struct {
	fragments []string
	reason    string
}{
	{[]string{"AuthFailure.ServiceLinkedRoleCreationNotPermitted"}, "SpotSLRCreationFailed"},
	{[]string{"Not authorized for images"}, "AMIAuthorizationFailure"},
	{[]string{"UnauthorizedOperation"}, "Unauthorized"},
	{[]string{"AccessDenied"}, "Unauthorized"},
	{[]string{"AuthFailure"}, "Unauthorized"},
	{[]string{"InvalidParameter", "belong to different networks"}, "SecurityGroupSubnetVPCMismatch"},
	{[]string{"iamInstanceProfile.name is invalid"}, "InstanceProfileNameInvalid"},
	{[]string{"InvalidLaunchTemplateId.NotFound"}, "LaunchTemplateNotFound"},
	{[]string{"User data is limited to"}, "UserDataSizeLimitExceeded"},
	{[]string{"InvalidAMIID.Malformed"}, "InvalidAMIID"},
	{[]string{"InvalidAMIID.NotFound"}, "AMINotFound"},
	{[]string{"RequestLimitExceeded"}, "RequestLimitExceeded"},
	{[]string{"InternalError"}, "InternalError"},
	{[]string{"not eligible for Free Tier"}, "FreeTierIneligible"},
	{[]string{"MaxFleetCountExceeded"}, "FleetQuotaExceeded"},
	{[]string{"PendingVerification"}, "AccountPendingVerification"},
	{[]string{"MaxSpotInstanceCountExceeded"}, "SpotQuotaExceeded"},
	{[]string{"VcpuLimitExceeded"}, "VCPULimitExceeded"},
	{[]string{"InsufficientFreeAddressesInSubnet"}, "InsufficientFreeAddressesInSubnet"},
}

// launchReason names what EC2 said of a failed launch ("code: message").
func launchReason(said string) string {
	for _, r := range launchReasons {
		all := true
		for _, f := range r.fragments {
			all = all && strings.Contains(said, f)
		}
		if all {
			return r.reason
		}
	}
	return "LaunchFailed"
}
