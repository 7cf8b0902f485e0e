// Package journal records every decision of the autoscaler and every refusal to act, with its
// reason, the nodes and pods it touches and what it does to the bill, and keeps per node why it
// is not being disrupted now. Logs, Kubernetes events and metrics are sinks of the journal, so
// they all say the same thing; reasons are typed constants (Reason), so they match on the same
// words.
package journal
