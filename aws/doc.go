// Package aws is nodepilot's EC2 cloud provider: it implements the engine's CloudProvider over
// aws-sdk-go-v2 (instance types, offerings and prices, subnets, security groups, AMIs, launch
// templates, CreateFleet, termination, garbage collection, drift and the interruption queue).
// Sub-packages hold the embedded instance catalog, the conversion of EC2 instance type facts into
// the engine's instance types, the IAM policy the provider needs, and the in-process AWS emulator.
//
// Building one: LoadConfig finds credentials and region the standard way, NewClients makes the
// clients (with per-service endpoints for the emulator or moto), New makes the Provider. Run keeps
// instance types and prices fresh (DescribeInstanceTypes, DescribeInstanceTypeOfferings, the
// Pricing API with the embedded catalog as fallback, DescribeSpotPriceHistory); Status says how
// fresh they are and which IAM actions AWS denied. NodeClassStatus resolves an EC2NodeClass for
// the kube layer to write, CollectGarbage terminates leaked instances, and Interruptions returns
// the SQS interruption queue.
//
// The clients.go interfaces list every AWS operation the provider calls; the policy in
// aws/policy/controller-policy.json is tested to allow exactly those.
//
// A file holds one idea: clients.go (the AWS operations called), config.go (SDK configuration,
// credentials, region, endpoints), calls.go (call counting and permission errors), refresh.go
// (the refreshed data and its status), instancetypes.go (DescribeInstanceTypes to engine
// instance types), pricing.go, offerings.go (offerings without capacity), cache.go,
// selectors.go (selector terms as EC2 filters), subnets.go, securitygroups.go, amis.go,
// instanceprofile.go, userdata.go, launchtemplates.go, fleet.go (the CreateFleet request and
// answer), create.go (Create), instances.go (Get, List, Delete), terminate.go (batched
// termination), gc.go, drift.go, nodeclassstatus.go, messages.go (EventBridge events) and
// interruption.go (the queue).
package aws
