// Command nodepilot is a k9s-style console with a Karpenter-compatible node autoscaler inside.
// This file parses the command line and hands over to the command asked for; each command's
// wiring lives in the file named after it.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes a command line and returns the process exit code: 0 on success, 1 when the
// input (flags, manifests) is wrong or the command failed.
func run(args []string, stdout, stderr io.Writer) int {
	root := &cobra.Command{
		Use:           "nodepilot",
		Short:         "A k9s-style console with a Karpenter-compatible node autoscaler inside",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	consoleCommand(root)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(planCommand(stdout))
	root.AddCommand(installCRDsCommand(stdout))
	root.AddCommand(demoCommand(stdout))
	root.AddCommand(controllerCommand(stdout))
	root.AddCommand(emulatorCommand(stdout))
	root.AddCommand(iamPolicyCommand(stdout))
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		fmt.Fprintf(stderr, "nodepilot: %v\n", err)
		return 1
	}
	return 0
}
