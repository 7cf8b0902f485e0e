package main

import (
	"errors"

	awserrors "github.com/aws/karpenter-provider-aws/pkg/errors"
)

// LaunchReason is what Karpenter's AWS provider names a launch failure EC2 describes so.
type LaunchReason struct {
	Said   string `json:"said"`
	Reason string `json:"reason"`
}

// launchFailures are EC2's words for failed launches ("code: message"), each failure Karpenter
// names, some together where one must win, and some it does not name.
var launchFailures = []string{
	"AuthFailure.ServiceLinkedRoleCreationNotPermitted: The provided credentials do not have permission to create the service-linked role for EC2 Spot Instances.",
	"UnauthorizedOperation: You are not authorized to perform this operation.",
	"UnauthorizedOperation: You are not authorized to perform this operation. Not authorized for images: [ami-0123]",
	"UnauthorizedOperation: You are not authorized to perform this operation with an explicit deny in a permissions boundary",
	"AccessDenied: User is not authorized",
	"AuthFailure: AWS was not able to validate the provided access credentials",
	"InvalidParameter: Security group sg-1 and subnet subnet-1 belong to different networks.",
	"InvalidParameterValue: Value (x) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name",
	"InvalidLaunchTemplateId.NotFound: The specified launch template, with template ID lt-1, does not exist.",
	"InvalidParameterValue: User data is limited to 16384 bytes",
	"InvalidAMIID.Malformed: Invalid id: \"ami-x\"",
	"InvalidAMIID.NotFound: The image id '[ami-1]' does not exist",
	"RequestLimitExceeded: Request limit exceeded.",
	"InternalError: An internal error has occurred",
	"InvalidParameterCombination: The specified instance type is not eligible for Free Tier.",
	"MaxFleetCountExceeded: You've reached the fleet limit",
	"PendingVerification: Your request for accessing resources in this region is being validated",
	"MaxSpotInstanceCountExceeded: Max spot instance count exceeded",
	"VcpuLimitExceeded: You have requested more vCPU capacity than your current vCPU limit of 32 allows",
	"InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet 'subnet-1'",
	"InsufficientInstanceCapacity: We currently do not have sufficient m5.large capacity in the Availability Zone you requested (us-east-1a).",
	"Unsupported: Your requested instance type (m5.large) is not supported in your requested Availability Zone (us-east-1f).",
	"InvalidParameterValue: Invalid value 'm5.huge' for InstanceType.",
}

// launchReasons names each of launchFailures with Karpenter's own function.
func launchReasons() []LaunchReason {
	out := make([]LaunchReason, len(launchFailures))
	for i, said := range launchFailures {
		reason, _ := awserrors.ToReasonMessage(errors.New(said))
		out[i] = LaunchReason{Said: said, Reason: reason}
	}
	return out
}
