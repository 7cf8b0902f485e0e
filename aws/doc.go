// Package aws is nodepilot's EC2 cloud provider: it implements the engine's CloudProvider over
// aws-sdk-go-v2 (instance types, offerings and prices, subnets, security groups, AMIs, launch
// templates, CreateFleet, termination, garbage collection, drift and the interruption queue).
// Sub-packages hold the embedded instance catalog, the conversion of EC2 instance type facts into
// the engine's instance types, and the in-process AWS emulator.
package aws
