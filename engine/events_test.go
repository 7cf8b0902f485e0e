package engine_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/interruption"
	"github.com/nodepilot/nodepilot/kube/apis/upstream"
)

// eventReasons finds the reasons of the events the engine and the app record: the Reason of every
// journal.Event literal in its sources (a string, a string constant such as journal.ReasonEvicted,
// or a call of a function of the package that returns them), and the interruption reasons.
func eventReasons(t *testing.T) map[string]string {
	t.Helper()
	found := map[string]string{} // reason -> where
	fset := token.NewFileSet()
	files := map[string][]*ast.File{} // by folder, that is package
	// The engine, and the app, which runs the EC2NodeClass finalizer.
	for _, root := range []string{".", "../app"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "enginetest") {
				return err
			}
			file, err := parser.ParseFile(fset, path, nil, 0)
			files[filepath.Dir(path)] = append(files[filepath.Dir(path)], file)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// consts are the string constants of every package, as "package.Name".
	consts := map[string]*ast.BasicLit{}
	for dir, pkg := range files {
		for _, f := range pkg {
			for _, d := range f.Decls {
				if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.CONST {
					for _, spec := range gd.Specs {
						vs := spec.(*ast.ValueSpec)
						for i, name := range vs.Names {
							if i < len(vs.Values) {
								if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
									consts[filepath.Base(dir)+"."+name.Name] = lit
								}
							}
						}
					}
				}
			}
		}
	}
	// literals are the string literals an expression of the package in dir stands for: itself, the
	// constant it names, or what the function it calls returns first.
	var literals func(dir string, e ast.Expr) []*ast.BasicLit
	literals = func(dir string, e ast.Expr) []*ast.BasicLit {
		switch v := e.(type) {
		case *ast.BasicLit:
			return []*ast.BasicLit{v}
		case *ast.SelectorExpr:
			if pkg, ok := v.X.(*ast.Ident); ok && consts[pkg.Name+"."+v.Sel.Name] != nil {
				return []*ast.BasicLit{consts[pkg.Name+"."+v.Sel.Name]}
			}
		case *ast.Ident:
			if lit := consts[filepath.Base(dir)+"."+v.Name]; lit != nil {
				return []*ast.BasicLit{lit}
			}
		case *ast.CallExpr:
			id, ok := v.Fun.(*ast.Ident)
			if !ok {
				return nil
			}
			var out []*ast.BasicLit
			for _, f := range files[dir] {
				for _, d := range f.Decls {
					if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == id.Name {
						ast.Inspect(fn.Body, func(n ast.Node) bool {
							if ret, ok := n.(*ast.ReturnStmt); ok && len(ret.Results) > 0 {
								out = append(out, literals(dir, ret.Results[0])...)
							}
							return true
						})
					}
				}
			}
			return out
		}
		return nil
	}
	for dir, pkg := range files {
		for _, file := range pkg {
			inspectEvents(file, func(value ast.Expr) {
				for _, lit := range literals(dir, value) {
					reason, _ := strconv.Unquote(lit.Value)
					found[reason] = fset.Position(lit.Pos()).String()
				}
			})
		}
	}
	for _, kind := range []cloudprovider.InterruptionKind{cloudprovider.SpotInterruption, cloudprovider.RebalanceRecommendation,
		cloudprovider.ScheduledChange, cloudprovider.StateChange, cloudprovider.CapacityReservationInterruption} {
		for _, detail := range []string{"stopping", "terminated"} {
			reason, _ := interruption.EventReason(kind, detail)
			found[string(reason)] = "interruption.EventReason(" + string(kind) + ")"
		}
	}
	return found
}

// inspectEvents calls reason with the Reason value of each journal.Event literal of file.
func inspectEvents(file *ast.File, reason func(ast.Expr)) {
	ast.Inspect(file, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		var events []*ast.CompositeLit
		switch {
		case isEvent(lit.Type):
			events = append(events, lit)
		case isEventSlice(lit.Type):
			for _, e := range lit.Elts {
				if inner, ok := e.(*ast.CompositeLit); ok {
					events = append(events, inner)
				}
			}
		}
		for _, e := range events {
			for _, elt := range e.Elts {
				if kv, ok := elt.(*ast.KeyValueExpr); ok && kv.Key.(*ast.Ident).Name == "Reason" {
					reason(kv.Value)
				}
			}
		}
		return true
	})
}

func isEvent(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Event" && sel.X.(*ast.Ident).Name == "journal"
}

func isEventSlice(e ast.Expr) bool {
	arr, ok := e.(*ast.ArrayType)
	return ok && isEvent(arr.Elt)
}

// TestEventReasonsAreKarpenters requires every event reason the engine records to be one of
// Karpenter's, or one of nodepilot's own that the README names (where Karpenter records no
// event), and reports how many of Karpenter's reasons nodepilot records.
func TestEventReasonsAreKarpenters(t *testing.T) {
	facts := upstream.Load(t)
	var theirs []string
	for _, e := range facts.Events {
		if e.Reason != "" && !slices.Contains(theirs, e.Reason) {
			theirs = append(theirs, e.Reason)
		}
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ours := eventReasons(t)
	if len(ours) < 8 {
		t.Fatalf("found %d event reasons in the engine, want at least 8: %v", len(ours), ours)
	}
	matched := 0
	for reason, where := range ours {
		switch {
		case slices.Contains(theirs, reason):
			matched++
		case !strings.Contains(string(readme), "`"+reason+"`"):
			t.Errorf("event reason %s (%s) is not Karpenter %s's: use Karpenter's, or name it in the README as nodepilot's own", reason, where, facts.Version)
		}
	}
	t.Logf("event reasons of Karpenter %s that nodepilot records: %d of %d", facts.Version, matched, len(theirs))
}
