package demo

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/prometheus/promql/parser"
)

// dashboardFile is the Grafana dashboard users import.
const dashboardFile = "../deploy/grafana/nodepilot.json"

// exported is what a running demo exports: each metric family's label names, gathered at
// several points of a story, since a counter appears only once something counted.
type exported map[string]map[string]bool

func (e exported) gather(t *testing.T, reg prometheus.Gatherer) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		labels := e[f.GetName()]
		if labels == nil {
			labels = map[string]bool{}
			e[f.GetName()] = labels
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = true
			}
		}
	}
}

type dashboard struct {
	Inputs []struct {
		Name, Type, PluginID string
	} `json:"__inputs"`
	Templating struct {
		List []struct {
			Name       string
			Datasource datasource
			Definition string
		}
	}
	Panels []struct {
		Type, Title string
		Datasource  *datasource
		Targets     []struct {
			Datasource datasource
			Expr       string
		}
	}
}

type datasource struct{ Type, UID string }

// labelValues is Grafana's variable query label_values(metric, label).
var labelValues = regexp.MustCompile(`^label_values\(([a-zA-Z_:][a-zA-Z0-9_:]*), *([a-zA-Z_][a-zA-Z0-9_]*)\)$`)

// checkDashboard requires the dashboard to import unchanged (its data source the
// ${DS_PROMETHEUS} input), every expression to parse as PromQL, and every metric, label
// matcher, grouping label and variable it names to be exported by the demo.
func checkDashboard(t *testing.T, have exported) {
	t.Helper()
	raw, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	if len(d.Inputs) != 1 || d.Inputs[0].Name != "DS_PROMETHEUS" || d.Inputs[0].PluginID != "prometheus" {
		t.Errorf("%s: __inputs %+v, want the one DS_PROMETHEUS Prometheus data source", dashboardFile, d.Inputs)
	}
	const uid = "${DS_PROMETHEUS}"
	for _, v := range d.Templating.List {
		m := labelValues.FindStringSubmatch(v.Definition)
		if v.Datasource.UID != uid || m == nil {
			t.Errorf("variable %s: data source %q, query %q", v.Name, v.Datasource.UID, v.Definition)
			continue
		}
		if !have[m[1]][m[2]] {
			t.Errorf("variable %s: %s has no label %s in the running demo", v.Name, m[1], m[2])
		}
	}
	p := parser.NewParser(parser.Options{})
	exprs, panels := 0, 0
	for _, panel := range d.Panels {
		if panel.Type == "row" {
			continue
		}
		panels++
		if panel.Datasource == nil || panel.Datasource.UID != uid || len(panel.Targets) == 0 {
			t.Errorf("panel %q: data source %v, %d queries", panel.Title, panel.Datasource, len(panel.Targets))
		}
		for _, target := range panel.Targets {
			exprs++
			if target.Datasource.UID != uid {
				t.Errorf("panel %q: a query's data source is %q", panel.Title, target.Datasource.UID)
			}
			// Grafana's variables, as Grafana fills them in.
			q := strings.NewReplacer("$__rate_interval", "5m", "$nodepool", ".*").Replace(target.Expr)
			expr, err := p.ParseExpr(q)
			if err != nil {
				t.Errorf("panel %q: %q: %v", panel.Title, target.Expr, err)
				continue
			}
			for _, problem := range unexported(expr, have) {
				t.Errorf("panel %q: %s", panel.Title, problem)
			}
		}
	}
	t.Logf("dashboard: %d panels, %d PromQL expressions, every metric and label exported by the demo", panels, exprs)
}

// unexported lists the metrics and labels of expr that the demo does not export.
func unexported(expr parser.Expr, have exported) []string {
	var problems []string
	parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
		switch n := node.(type) {
		case *parser.VectorSelector:
			labels, ok := have[n.Name]
			if !ok {
				problems = append(problems, fmt.Sprintf("%s is not exported", n.Name))
				return nil
			}
			for _, m := range n.LabelMatchers {
				if m.Name != "__name__" && !labels[m.Name] {
					problems = append(problems, fmt.Sprintf("%s has no label %s", n.Name, m.Name))
				}
			}
		case *parser.AggregateExpr:
			var inside []string
			parser.Inspect(n.Expr, func(node parser.Node, _ []parser.Node) error {
				if vs, ok := node.(*parser.VectorSelector); ok {
					inside = append(inside, vs.Name)
				}
				return nil
			})
			for _, label := range n.Grouping {
				if !slices.ContainsFunc(inside, func(name string) bool { return have[name][label] }) {
					problems = append(problems, fmt.Sprintf("grouping by %s: none of %v has it", label, inside))
				}
			}
		}
		return nil
	})
	return problems
}

// TestUnexported: the dashboard check names what the demo does not export.
func TestUnexported(t *testing.T) {
	have := exported{"karpenter_nodepools_usage": {"nodepool": true, "resource_type": true}}
	for _, tc := range []struct{ expr, want string }{
		{`sum by (nodepool) (karpenter_nodepools_usage{resource_type="cpu"})`, ""},
		{`karpenter_nodepools_limit`, "karpenter_nodepools_limit is not exported"},
		{`karpenter_nodepools_usage{zone="a"}`, "karpenter_nodepools_usage has no label zone"},
		{`sum by (zone) (rate(karpenter_nodepools_usage[5m]))`, "grouping by zone: none of [karpenter_nodepools_usage] has it"},
	} {
		expr, err := parser.NewParser(parser.Options{}).ParseExpr(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(unexported(expr, have), "; "); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.expr, got, tc.want)
		}
	}
}
