package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/tools/go/packages"
	"k8s.io/apimachinery/pkg/util/sets"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// Facts is what the fidelity tests compare nodepilot against.
type Facts struct {
	// Version is the Karpenter release the facts come from.
	Version string `json:"version"`
	// NodePoolHashVersion and EC2NodeClassHashVersion are written next to the hashes.
	NodePoolHashVersion     string `json:"nodePoolHashVersion"`
	EC2NodeClassHashVersion string `json:"ec2NodeClassHashVersion"`
	// WellKnownLabels are the label keys Karpenter schedules on (core and AWS).
	WellKnownLabels []string `json:"wellKnownLabels"`
	// Metrics are the metric families Karpenter's code defines.
	Metrics []Metric `json:"metrics"`
	// Events are the event reasons Karpenter's code records.
	Events []Event `json:"events"`
	// SchedulingSuite are the cases of Karpenter's provisioning and scheduling test suites.
	SchedulingSuite []SuiteCase `json:"schedulingSuite"`
	// AWSOperations are the AWS API operations Karpenter's AWS provider may call: the methods of
	// the SDK client interfaces it declares.
	AWSOperations []AWSOperation `json:"awsOperations"`
	// LaunchReasons are Karpenter's names for launch failures EC2 describes so.
	LaunchReasons []LaunchReason `json:"launchReasons"`
}

// AWSOperation is one AWS API operation, by the service interface that declares it.
type AWSOperation struct {
	Service   string `json:"service"` // the interface's name without API: EC2, IAM, EKS...
	Operation string `json:"operation"`
}

// sdkPackage declares the AWS provider's SDK client interfaces.
const sdkPackage = "github.com/aws/karpenter-provider-aws/pkg/aws"

// Metric is one metric family as Karpenter defines it.
type Metric struct {
	Name   string   `json:"name"`
	Type   string   `json:"type"` // counter, gauge, histogram or summary
	Labels []string `json:"labels"`
	// DynamicLabels says that more labels are computed at run time (from the well-known
	// labels); Labels are then the fixed ones.
	DynamicLabels bool   `json:"dynamicLabels,omitempty"`
	Source        string `json:"source"` // package and file, for the reader
}

// Event is one event reason and what Karpenter records it on.
type Event struct {
	Reason string `json:"reason"`
	Type   string `json:"type"`   // Normal or Warning
	Object string `json:"object"` // the involved object's kind: Node, NodeClaim, Pod, NodePool...
	Source string `json:"source"`
}

// upstream are the packages whose metrics and events count: everything of both modules but
// tests and test helpers.
var upstream = []string{"sigs.k8s.io/karpenter/pkg/...", "github.com/aws/karpenter-provider-aws/pkg/..."}

// writeFacts writes facts.json, Karpenter's CRDs (the AWS provider's copies, which the chart
// installs) and the AWS provider's examples into dir.
func writeFacts(dir string) error {
	pkgs, err := packages.Load(&packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedModule,
		Tests: false,
	}, upstream...)
	if err != nil {
		return fmt.Errorf("loading Karpenter's packages: %w", err)
	}
	facts := Facts{
		NodePoolHashVersion:     karpv1.NodePoolHashVersion,
		EC2NodeClassHashVersion: awsv1.EC2NodeClassHashVersion,
		WellKnownLabels:         sets.List(karpv1.WellKnownLabels),
	}
	var crdDir, coreDir string
	var problems []string
	for _, pkg := range pkgs {
		if strings.Contains(pkg.PkgPath, "/test") || strings.HasSuffix(pkg.PkgPath, "/fake") {
			continue
		}
		for _, e := range pkg.Errors {
			problems = append(problems, e.Error())
		}
		if pkg.Module != nil && pkg.Module.Path == "github.com/aws/karpenter-provider-aws" {
			facts.Version, crdDir = pkg.Module.Version, filepath.Join(pkg.Module.Dir, "pkg", "apis", "crds")
		}
		if pkg.Module != nil && pkg.Module.Path == "sigs.k8s.io/karpenter" {
			coreDir = pkg.Module.Dir
		}
		if pkg.PkgPath == sdkPackage {
			facts.AWSOperations = awsOperations(pkg)
		}
		m, e, p := scan(pkg)
		facts.Metrics, facts.Events, problems = append(facts.Metrics, m...), append(facts.Events, e...), append(problems, p...)
	}
	if len(problems) > 0 {
		return fmt.Errorf("reading Karpenter's code:\n  %s", strings.Join(problems, "\n  "))
	}
	if crdDir == "" || coreDir == "" || len(facts.AWSOperations) == 0 {
		return fmt.Errorf("Karpenter's modules were not loaded")
	}
	suite, err := suiteCases(coreDir)
	if err != nil {
		return fmt.Errorf("reading Karpenter's scheduling suites: %w", err)
	}
	facts.SchedulingSuite = suite
	facts.LaunchReasons = launchReasons()
	sort.Slice(facts.Metrics, func(i, j int) bool { return facts.Metrics[i].Name < facts.Metrics[j].Name })
	sort.Slice(facts.Events, func(i, j int) bool {
		a, b := facts.Events[i], facts.Events[j]
		return a.Reason+a.Object+a.Source < b.Reason+b.Object+b.Source
	})
	// An event made in several places is one fact.
	facts.Events = slices.CompactFunc(facts.Events, func(a, b Event) bool {
		return a.Reason == b.Reason && a.Type == b.Type && a.Object == b.Object
	})
	if err := copyCRDs(crdDir, filepath.Join(dir, "crds")); err != nil {
		return err
	}
	if err := copyExamples(filepath.Join(crdDir, "..", "..", "..", "examples", "v1"), filepath.Join(dir, "examples")); err != nil {
		return err
	}
	data, err := json.MarshalIndent(facts, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "facts.json"), data, 0o644)
}

// awsOperations lists the methods of the interfaces named *API in pkg, sorted.
func awsOperations(pkg *packages.Package) []AWSOperation {
	var out []AWSOperation
	scope := pkg.Types.Scope()
	for _, name := range scope.Names() {
		iface, ok := scope.Lookup(name).Type().Underlying().(*types.Interface)
		if !ok || !strings.HasSuffix(name, "API") {
			continue
		}
		for m := range iface.Methods() {
			out = append(out, AWSOperation{Service: strings.TrimSuffix(name, "API"), Operation: m.Name()})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Service+out[i].Operation < out[j].Service+out[j].Operation })
	return out
}

// scan finds the metric families and events that pkg defines.
func scan(pkg *packages.Package) (metrics []Metric, events []Event, problems []string) {
	info := pkg.TypesInfo
	for _, file := range pkg.Syntax {
		source := filepath.Join(pkg.PkgPath, filepath.Base(pkg.Fset.File(file.Pos()).Name()))
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				m, ok, err := metricOf(pkg, n)
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s: %v", pkg.Fset.Position(n.Pos()), err))
				} else if ok {
					m.Source = source
					metrics = append(metrics, m)
				}
			case *ast.CompositeLit:
				if named(info.TypeOf(n)) != "sigs.k8s.io/karpenter/pkg/events.Event" {
					return true
				}
				e, err := eventOf(info, n)
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s: %v", pkg.Fset.Position(n.Pos()), err))
					return true
				}
				e.Source = source
				events = append(events, e)
			}
			return true
		})
	}
	return metrics, events, problems
}

// metricTypes maps prometheus' option structs to the metric type they make.
var metricTypes = map[string]string{
	"github.com/prometheus/client_golang/prometheus.CounterOpts":   "counter",
	"github.com/prometheus/client_golang/prometheus.GaugeOpts":     "gauge",
	"github.com/prometheus/client_golang/prometheus.HistogramOpts": "histogram",
	"github.com/prometheus/client_golang/prometheus.SummaryOpts":   "summary",
}

// metricOf reads a call that defines a metric family: one whose arguments are a prometheus
// options literal followed by the label names.
func metricOf(pkg *packages.Package, call *ast.CallExpr) (Metric, bool, error) {
	info := pkg.TypesInfo
	for i, arg := range call.Args {
		lit, ok := arg.(*ast.CompositeLit)
		if !ok {
			continue
		}
		kind, ok := metricTypes[named(info.TypeOf(lit))]
		if !ok {
			continue
		}
		fields := map[string]string{}
		for _, elt := range lit.Elts {
			kv := elt.(*ast.KeyValueExpr)
			key := kv.Key.(*ast.Ident).Name
			if key == "Namespace" || key == "Subsystem" || key == "Name" {
				v, err := stringValue(info, kv.Value)
				if err != nil {
					return Metric{}, false, fmt.Errorf("metric %s: %w", key, err)
				}
				fields[key] = v
			}
		}
		m := Metric{Name: prometheus.BuildFQName(fields["Namespace"], fields["Subsystem"], fields["Name"]), Type: kind}
		if i+1 < len(call.Args) {
			r := &labelReader{pkg: pkg}
			labels, err := r.stringsOf(call.Args[i+1])
			if err != nil {
				return Metric{}, false, fmt.Errorf("metric %s labels: %w", m.Name, err)
			}
			m.Labels, m.DynamicLabels = labels, r.dynamic
		}
		return m, true, nil
	}
	return Metric{}, false, nil
}

// eventOf reads an events.Event literal.
func eventOf(info *types.Info, lit *ast.CompositeLit) (Event, error) {
	var e Event
	for _, elt := range lit.Elts {
		kv := elt.(*ast.KeyValueExpr)
		var err error
		switch kv.Key.(*ast.Ident).Name {
		case "Reason":
			e.Reason, err = stringValue(info, kv.Value)
		case "Type":
			e.Type, err = stringValue(info, kv.Value)
		case "InvolvedObject":
			t := info.TypeOf(kv.Value)
			if p, ok := t.(*types.Pointer); ok {
				t = p.Elem()
			}
			e.Object = t.String()[strings.LastIndex(t.String(), ".")+1:]
		}
		if err != nil {
			return e, fmt.Errorf("event %s: %w", kv.Key.(*ast.Ident).Name, err)
		}
	}
	return e, nil
}

// stringValue is the constant string value of expr.
func stringValue(info *types.Info, expr ast.Expr) (string, error) {
	tv, ok := info.Types[expr]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "", fmt.Errorf("%s is not a constant string", types.ExprString(expr))
	}
	return constant.StringVal(tv.Value), nil
}

// labelReader reads label name lists in one package.
type labelReader struct {
	pkg *packages.Package
	// dynamic is set when part of a list is computed at run time (the node metrics' labels
	// come from the well-known labels): the list read is then only its fixed part.
	dynamic bool
}

// stringsOf is the value of a []string expression: a literal of constants, a package variable
// or a function of the package returning one, or append and lo.Flatten of those. Parts inside
// append that are computed at run time are left out and marked dynamic.
func (r *labelReader) stringsOf(expr ast.Expr) ([]string, error) {
	info := r.pkg.TypesInfo
	switch e := expr.(type) {
	case *ast.CompositeLit:
		var out []string
		for _, elt := range e.Elts {
			if inner, ok := elt.(*ast.CompositeLit); ok { // [][]string, as lo.Flatten takes
				vs, err := r.stringsOf(inner)
				if err != nil {
					return nil, err
				}
				out = append(out, vs...)
				continue
			}
			v, err := stringValue(info, elt)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case *ast.CallExpr:
		switch name := types.ExprString(e.Fun); name {
		case "append", "lo.Flatten":
			var out []string
			for _, arg := range e.Args {
				if tv := info.Types[arg]; tv.Value != nil {
					v, _ := stringValue(info, arg)
					out = append(out, v)
					continue
				}
				vs, err := r.stringsOf(arg)
				if err != nil {
					r.dynamic = true
					continue
				}
				out = append(out, vs...)
			}
			return out, nil
		default:
			if result := r.returned(e); result != nil {
				return r.stringsOf(result)
			}
		}
	case *ast.Ident, *ast.SelectorExpr:
		if init := r.varInit(e); init != nil {
			return r.stringsOf(init)
		}
	}
	return nil, fmt.Errorf("cannot read %s", types.ExprString(expr))
}

// returned is the result expression of a call to a function of the package without
// arguments whose body is a single return.
func (r *labelReader) returned(call *ast.CallExpr) ast.Expr {
	id, ok := call.Fun.(*ast.Ident)
	if !ok || len(call.Args) > 0 {
		return nil
	}
	fn, ok := r.pkg.TypesInfo.Uses[id].(*types.Func)
	if !ok {
		return nil
	}
	for _, file := range r.pkg.Syntax {
		for _, decl := range file.Decls {
			d, ok := decl.(*ast.FuncDecl)
			if !ok || r.pkg.TypesInfo.Defs[d.Name] != fn || d.Body == nil || len(d.Body.List) != 1 {
				continue
			}
			if ret, ok := d.Body.List[0].(*ast.ReturnStmt); ok && len(ret.Results) == 1 {
				return ret.Results[0]
			}
		}
	}
	return nil
}

// varInit finds the initializer of the package variable expr names.
func (r *labelReader) varInit(expr ast.Expr) ast.Expr {
	var obj types.Object
	switch e := expr.(type) {
	case *ast.Ident:
		obj = r.pkg.TypesInfo.Uses[e]
	case *ast.SelectorExpr:
		obj = r.pkg.TypesInfo.Uses[e.Sel]
	}
	v, ok := obj.(*types.Var)
	if !ok {
		return nil
	}
	for _, file := range r.pkg.Syntax {
		for _, decl := range file.Decls {
			d, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range d.Specs {
				vs, ok := spec.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for i, name := range vs.Names {
					if r.pkg.TypesInfo.Defs[name] == v && i < len(vs.Values) {
						return vs.Values[i]
					}
				}
			}
		}
	}
	return nil
}

// named is the package-qualified name of t, or "".
func named(t types.Type) string {
	if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil {
		return n.Obj().Pkg().Path() + "." + n.Obj().Name()
	}
	return ""
}

// copyCRDs copies the three CRDs nodepilot also defines.
func copyCRDs(from, to string) error {
	if err := os.MkdirAll(to, 0o755); err != nil {
		return err
	}
	for _, name := range []string{"karpenter.sh_nodepools.yaml", "karpenter.sh_nodeclaims.yaml", "karpenter.k8s.aws_ec2nodeclasses.yaml"} {
		data, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(to, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// copyExamples copies the AWS provider's example manifests (NodePools and EC2NodeClasses).
func copyExamples(from, to string) error {
	files, err := filepath.Glob(filepath.Join(from, "*.yaml"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no examples in %s: %v", from, err)
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(to, filepath.Base(f)), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
