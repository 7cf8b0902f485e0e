package render

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/engine/disruption"
)

// ExplainNodePool says what a NodePool may still launch and how many of its nodes its budgets
// let each disruption reason take now.
func ExplainNodePool(p NodePool, allowances []disruption.Allowance, now time.Time) Text {
	var w Writer
	np := p.Pool
	w.Add("NodePool ", ToneHeading).Add(np.Name, ToneHeading).End()
	w.Field(2, "nodes", itoa(p.Nodes))
	cpuLimit, hasCPU := limit(np.Spec.Limits, corev1.ResourceCPU, true)
	memLimit, hasMem := limit(np.Spec.Limits, corev1.ResourceMemory, false)
	cpu, cpuPct, _ := againstLimit(p.CPU, cpuLimit, hasCPU, CPU)
	mem, memPct, _ := againstLimit(p.Mem, memLimit, hasMem, Mem)
	w.Field(2, "cpu (of limit)", cpu+"  "+cpuPct)
	w.Field(2, "memory (of limit)", mem+"  "+memPct)
	w.Field(2, "cost", Dollars(p.PerHour)+"/h, "+Monthly(p.PerHour)+"/month")
	w.Field(2, "consolidation", fmt.Sprintf("%s after %s", orNone(string(np.Spec.Disruption.ConsolidationPolicy)), after(np.Spec.Disruption.ConsolidateAfter)))
	w.Field(2, "budgets", Budgets(np.Spec.Disruption.Budgets))
	w.Blank()
	w.Heading(fmt.Sprintf("Disruptions allowed now (%s)", now.UTC().Format("15:04:05 UTC")))
	for _, a := range allowances {
		allowed := "unlimited"
		if a.Budget != "" {
			allowed = itoa(a.Allowed)
		}
		tone := ToneNormal
		if a.Budget != "" && a.Allowed == 0 {
			tone = ToneBlocked
		}
		w.Add(fmt.Sprintf("  %-14s", a.Reason), ToneKey).Add(fmt.Sprintf("%9s  ", allowed), tone).Add(a.String(), ToneNormal).End()
		if !a.Until.IsZero() {
			w.Para(18, "the window closes "+Countdown(now, a.Until), ToneCompleted)
		}
	}
	return w.Text()
}
