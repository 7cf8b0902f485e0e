// Package plan is `nodepilot plan`: it turns the manifests a user writes (NodePools,
// EC2NodeClasses, workloads, DaemonSets, existing Nodes) into a scheduling problem over the
// embedded instance catalog, solves it, and renders the plan as a table, JSON or YAML.
package plan
