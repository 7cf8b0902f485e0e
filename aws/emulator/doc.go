// Package emulator is nodepilot's in-process AWS: EC2 and IAM (query protocol), SQS (JSON 1.0),
// SSM and Pricing (JSON 1.1) served over HTTP on one loopback listener, so that the real
// aws-sdk-go-v2 clients, pointed at Endpoint with BaseEndpoint, run the production code path in
// the demo and in tests. It owns the emulated account (zones, subnets, security groups, AMIs
// behind the EKS public SSM parameters, IAM roles and instance profiles, the interruption
// queue), the instances and their lifecycle, synthetic spot prices, fault injection and
// interruption injection. Instance types and on-demand prices come from the embedded catalog
// (package catalog); spot prices, AMIs and events are synthetic and labelled so.
//
// It serves exactly these operations, with AWS's request parameters, response shapes, error
// shapes and NextToken pagination: EC2 DescribeInstanceTypes, DescribeInstanceTypeOfferings,
// DescribeSpotPriceHistory, DescribeAvailabilityZones, DescribeSubnets,
// DescribeSecurityGroups, DescribeImages, CreateLaunchTemplate, DescribeLaunchTemplates,
// DeleteLaunchTemplate, CreateFleet (Type=instant), DescribeInstances, TerminateInstances,
// CreateTags; IAM GetInstanceProfile, CreateInstanceProfile, AddRoleToInstanceProfile,
// RemoveRoleFromInstanceProfile, GetRole, TagInstanceProfile, DeleteInstanceProfile; SQS
// GetQueueUrl, CreateQueue, SendMessage, ReceiveMessage, DeleteMessage; SSM GetParameter;
// Pricing GetProducts. Requests are not authenticated.
//
// Time comes from Config.Clock (boot and shutdown delays, the two minutes of an interruption
// warning, spot price steps, message visibility, long polls, call latency), so a fake or
// scaled clock drives everything. The emulator owns three goroutines (the HTTP server, the
// scheduler that applies state changes when they fall due, and the one that watches Start's
// context); Close ends them, the long polls and the requests in flight. SDK clients should use
// HTTPClient (see there why).
//
// # Admin API
//
// The admin API is JSON over HTTP under AdminEndpoint (Endpoint + "/_emulator"). Every POST
// and PUT answers {"status":"ok"} or, with HTTP 400, {"error":"..."}:
//
//	GET    /_emulator/                 summary: endpoint, region, zones, subnets, queue URL, routes
//	GET    /_emulator/instances        instances: id, type, zone, capacity type, state, launch time, tags, DNS name
//	GET    /_emulator/calls            API calls per operation; DELETE /_emulator/calls resets them
//	GET    /_emulator/faults           faults in force; DELETE /_emulator/faults clears them all
//	POST   /_emulator/faults/capacity  {"instanceType":"m5.*","zone":"us-east-1a","capacityType":"spot","code":"InsufficientInstanceCapacity","count":0}
//	POST   /_emulator/faults/throttle  {"operation":"CreateFleet","share":0.5,"next":3}
//	POST   /_emulator/faults/fail      {"operation":"DescribeInstances","count":2,"code":"InternalError"}
//	POST   /_emulator/faults/latency   {"operation":"","latency":"250ms"}
//	POST   /_emulator/interruptions    {"kind":"spot-interruption","instanceId":"i-0123456789abcdef0"}
//	PUT    /_emulator/subnets/{id}     {"freeAddresses":0}
//	GET    /_emulator/spot-price?instanceType=m5.large&zone=us-east-1a
//
// Capacity faults make CreateFleet report the code in its Errors for each matching pool and
// launch from the next pool in allocation-strategy order; empty fields match anything and a
// count of 0 lasts until cleared. Throttles answer with the service's throttling error for the
// next N calls and/or a share of calls. Failures make the next N calls of an operation fail
// with the given code. Interruption kinds are spot-interruption, rebalance-recommendation,
// scheduled-change, state-change (with "state": stopping, stopped, shutting-down or
// terminated) and capacity-reservation-interruption; each is delivered into the interruption
// queue exactly as EventBridge delivers it. The same controls exist as methods:
// InjectCapacityError, InjectThrottle, FailNext, InjectFailure, SetLatency, ClearFaults,
// Interrupt, SetFreeAddresses.
package emulator
