package uitest

import (
	"fmt"
	"time"

	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/journal"
)

// record fills the journal with one entry of every kind, the blockers of a few nodes, and
// cfg.Entries more, oldest first.
func (g *generator) record(j *journal.Journal, w world) {
	if len(w.nodes) < 8 {
		return
	}
	at := func(ago time.Duration) time.Time { return g.now.Add(-ago) }
	node := func(i int) string { return w.nodes[i%len(w.nodes)].Name }
	claim := func(i int) string { return w.claims[i%len(w.claims)].Name }
	pods := func(i int) []string {
		var out []string
		for _, p := range w.running {
			if p.Spec.NodeName == node(i) {
				out = append(out, p.Namespace+"/"+p.Name)
			}
		}
		return out
	}
	for k := range g.cfg.Entries {
		i := k % len(w.nodes)
		j.Record(journal.Entry{Time: at(3*time.Hour - time.Duration(k)*time.Second), Kind: journal.KindLaunch, Reason: journal.ReasonLaunched,
			Message: "launched nodeclaim", NodePool: poolOf(i), NodeClaims: []string{claim(i)}})
	}
	j.Record(journal.Entry{Time: at(47 * time.Minute), Kind: journal.KindGarbageCollection, Reason: journal.ReasonOrphanInstance,
		Message: "terminated instance i-0a1b2c3d4e5f60718 that no NodeClaim owns", NodeClaims: []string{"default-orphan"}})
	j.Record(journal.Entry{Time: at(41 * time.Minute), Kind: journal.KindLiveness, Reason: journal.ReasonLivenessTimeout, NodePool: "default",
		Message: "nodeclaim default-zzzzz did not register within 15m0s; deleting it", NodeClaims: []string{"default-zzzzz"}})
	j.Record(journal.Entry{Time: at(38 * time.Minute), Kind: journal.KindDisruption, Method: "Expiration", Reason: journal.ReasonExpired, NodePool: "on-demand",
		Message: "nodeclaim on-demand-xxxxx expired after 720h", NodeClaims: []string{"on-demand-xxxxx"}, Nodes: []string{"ip-10-0-9-99.ec2.internal"}})
	j.Record(journal.Entry{Time: at(35 * time.Minute), Kind: journal.KindDisruption, Method: "Emptiness", Reason: "Empty", NodePool: "default",
		Decision: "delete", Message: "disrupting node(s): Emptiness/delete, terminating 1 node (0 pods)",
		Nodes: []string{"ip-10-0-9-98.ec2.internal"}, NodeClaims: []string{"default-yyyyy"}, PriceBefore: 0.0336})
	j.Record(journal.Entry{Time: at(30 * time.Minute), Kind: journal.KindTermination, Reason: journal.ReasonTerminated, NodePool: "default",
		Message: "deleted node ip-10-0-9-98.ec2.internal", Nodes: []string{"ip-10-0-9-98.ec2.internal"}, NodeClaims: []string{"default-yyyyy"}})
	j.Record(journal.Entry{Time: at(22 * time.Minute), Kind: journal.KindInterruption, Method: "Interruption", Reason: "RebalanceRecommendation",
		NodePool: "default", Message: "rebalance recommendation for " + node(0), Nodes: []string{node(0)}, NodeClaims: []string{claim(0)}})
	j.Record(journal.Entry{Time: at(18 * time.Minute), Kind: journal.KindInterruption, Method: "Interruption", Reason: "ScheduledChange",
		NodePool: "on-demand", Message: "scheduled instance retirement for " + node(6), Nodes: []string{node(6)}, NodeClaims: []string{claim(6)},
		Until: g.now.Add(6 * time.Hour)})
	j.Record(journal.Entry{Time: at(12 * time.Minute), Kind: journal.KindDisruption, Method: "SingleNodeConsolidation", Reason: "Underutilized",
		NodePool: "default", Decision: "replace", Message: "disrupting node(s): SingleNodeConsolidation/replace, replacing " + node(7) + " with c6i.large",
		Nodes: []string{node(7)}, NodeClaims: []string{claim(7)}, Pods: pods(7), Replacements: []string{"c6i.large"}, PriceBefore: 0.192, PriceAfter: 0.0298})
	j.Record(journal.Entry{Time: at(11 * time.Minute), Kind: journal.KindValidation, Method: "MultiNodeConsolidation", Reason: disruption.BlockedValidationRejected,
		NodePool: "default", Message: "consolidation no longer valid after 15s: pod shop/web-7d9f8c6b5-bbbbb arrived", Nodes: []string{node(8), node(10)}})
	j.Record(journal.Entry{Time: at(9 * time.Minute), Kind: journal.KindDisruption, Method: "MultiNodeConsolidation", Reason: "Underutilized",
		NodePool: "default", Decision: "delete", DryRun: true, Message: "would disrupt node(s): MultiNodeConsolidation/delete, terminating 2 nodes",
		Nodes: []string{node(8), node(10)}, PriceBefore: 0.0672})
	j.Record(journal.Entry{Time: at(6 * time.Minute), Kind: journal.KindProvisioning, Reason: journal.ReasonPodsPending,
		Message: fmt.Sprintf("found provisionable pod(s): %d", len(w.pending)), Pods: names(w.pending)})
	j.Record(journal.Entry{Time: at(5*time.Minute + 50*time.Second), Kind: journal.KindLaunch, Reason: journal.ReasonLaunched, NodePool: "default",
		Message: "launched nodeclaim " + claim(len(w.claims)-1) + " (m6i.xlarge spot in us-east-1b)", NodeClaims: []string{claim(len(w.claims) - 1)}})
	j.Record(journal.Entry{Time: at(5*time.Minute + 20*time.Second), Kind: journal.KindRegistration, Reason: journal.ReasonRegistered, NodePool: "default",
		Message: "registered nodeclaim " + claim(9), NodeClaims: []string{claim(9)}, Nodes: []string{node(9)}})
	j.Record(journal.Entry{Time: at(5 * time.Minute), Kind: journal.KindInitialization, Reason: journal.ReasonInitialized, NodePool: "default",
		Message: "initialized nodeclaim " + claim(9), NodeClaims: []string{claim(9)}, Nodes: []string{node(9)}})
	j.Record(journal.Entry{Time: at(90 * time.Second), Kind: journal.KindInterruption, Method: "Interruption", Reason: "SpotInterruption",
		NodePool: "default", Message: "spot interruption for " + node(5) + ": instance reclaimed in 2m", Nodes: []string{node(5)},
		NodeClaims: []string{claim(5)}, Until: g.now.Add(30 * time.Second)})
	j.Record(journal.Entry{Time: at(40 * time.Second), Kind: journal.KindInterruption, Method: "Interruption", Reason: "StateChange",
		NodePool: "default", Message: "instance of " + node(11) + " is stopping", Nodes: []string{node(11)}, NodeClaims: []string{claim(11)}})
	g.block(j, w)
}

// block records why some nodes are not disrupted, as the disruption controller would.
func (g *generator) block(j *journal.Journal, w world) {
	blocks := []struct {
		node   int
		reason journal.Reason
		msg    string
		until  time.Duration
		pool   string
	}{
		{0, disruption.BlockedConsolidateAfter, "consolidateAfter (1m) has not passed since the last pod event", 42 * time.Second, "default"},
		{3, disruption.BlockedDoNotDisrupt, "the node is annotated karpenter.sh/do-not-disrupt", 0, "default"},
		{6, disruption.BlockedBudget, "budget #2 (nodes \"0\", reasons Drifted) of nodepool \"on-demand\" allows no more disruptions now", 0, "on-demand"},
		{7, disruption.BlockedPDB, "PodDisruptionBudget shop/web allows no disruption (pod web-7d9f8c6b5-kkkkk)", 0, "default"},
		{8, disruption.BlockedNeedsReplacements, "consolidating it needs two replacement nodes", 0, "default"},
		{10, disruption.BlockedNoCheaperType, "no instance type is cheaper than m6i.large spot ($0.034/h) that fits its pods", 0, "default"},
	}
	for _, b := range blocks {
		if b.node >= len(w.nodes) {
			continue
		}
		e := journal.Entry{Time: g.now.Add(-20 * time.Second), Reason: b.reason, NodePool: b.pool, Message: w.nodes[b.node].Name + ": " + b.msg,
			Forbids: disruption.Forbidden(b.reason)}
		if b.until > 0 {
			e.Until = g.now.Add(b.until)
		}
		j.Block(w.nodes[b.node].Name, e)
	}
}
