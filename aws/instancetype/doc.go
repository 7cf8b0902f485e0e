// Package instancetype turns the facts EC2 publishes about an instance type (vCPUs, memory, GPUs,
// ENI limits, bandwidth) into the engine's instance type: Karpenter's well-known labels, the
// capacity the kubelet reports and the overhead it reserves, computed as Karpenter does for
// AL2023. The embedded catalog and DescribeInstanceTypes both go through New.
package instancetype
