package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
)

// SuiteCase is one case of Karpenter's provisioning and scheduling test suites: an It or a table
// Entry, named by its Describe and Context path.
type SuiteCase struct {
	File string `json:"file"`
	Name string `json:"name"` // "Describe / Context / It"
}

// suiteFiles are the suites nodepilot's scheduling restates, under sigs.k8s.io/karpenter.
var suiteFiles = []string{
	"pkg/controllers/provisioning/suite_test.go",
	"pkg/controllers/provisioning/scheduling/suite_test.go",
	"pkg/controllers/provisioning/scheduling/topology_test.go",
	"pkg/controllers/provisioning/scheduling/instance_selection_test.go",
}

// suiteCases lists the cases of the suites in the module at dir.
func suiteCases(dir string) ([]SuiteCase, error) {
	var out []SuiteCase
	for _, rel := range suiteFiles {
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, filepath.Join(dir, rel), nil, 0)
		if err != nil {
			return nil, err
		}
		var walk func(n ast.Node, path []string)
		walk = func(n ast.Node, path []string) {
			ast.Inspect(n, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) == 0 {
					return true
				}
				id, ok := call.Fun.(*ast.Ident)
				if !ok {
					return true
				}
				title, ok := call.Args[0].(*ast.BasicLit)
				if !ok || title.Kind != token.STRING {
					return true
				}
				name, _ := strconv.Unquote(title.Value)
				switch id.Name {
				case "Describe", "Context", "When", "DescribeTable":
					for _, arg := range call.Args[1:] {
						walk(arg, append(append([]string(nil), path...), name))
					}
					return false
				case "It", "Entry":
					out = append(out, SuiteCase{File: rel, Name: strings.Join(append(append([]string(nil), path...), name), " / ")})
					return false
				}
				return true
			})
		}
		walk(file, nil)
	}
	return out, nil
}
