// Command fidelity reads Karpenter's own artifacts (sigs.k8s.io/karpenter and
// github.com/aws/karpenter-provider-aws at the version in go.mod) for nodepilot's fidelity tests.
// It lives in its own module because Karpenter needs a newer Go than nodepilot's.
//
//	fidelity facts -out DIR    writes DIR/facts.json (metric families, event reasons, hash
//	                           versions, well-known labels), DIR/crds/*.yaml (Karpenter's CRDs)
//	                           and DIR/examples/*.yaml (the AWS provider's example manifests)
//	fidelity hashes FILE...    prints, as JSON, Karpenter's hash of every NodePool and
//	                           EC2NodeClass in the YAML files
//	fidelity requirements FILE answers, as JSON, the requirements questions in FILE (JSON
//	                           RequirementsCases) with Karpenter's scheduling package
//
// hack/build-fidelity.sh builds it and runs facts; the tests run hashes and requirements on their
// own corpora.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fail(fmt.Errorf("usage: fidelity facts -out DIR | fidelity hashes [-ca-bundle B] FILE... | fidelity requirements FILE"))
	}
	var err error
	switch os.Args[1] {
	case "facts":
		flags := flag.NewFlagSet("facts", flag.ExitOnError)
		out := flags.String("out", "", "folder to write facts.json and crds/ into")
		_ = flags.Parse(os.Args[2:])
		if *out == "" {
			fail(fmt.Errorf("facts: -out is required"))
		}
		err = writeFacts(*out)
	case "hashes":
		flags := flag.NewFlagSet("hashes", flag.ExitOnError)
		caBundle := flags.String("ca-bundle", "", "the cluster CA bundle the EC2NodeClass hash covers")
		_ = flags.Parse(os.Args[2:])
		var hashes []Hash
		if hashes, err = hashFiles(flags.Args(), *caBundle); err == nil {
			err = json.NewEncoder(os.Stdout).Encode(hashes)
		}
	case "requirements":
		if len(os.Args) != 3 {
			fail(fmt.Errorf("usage: fidelity requirements FILE"))
		}
		var answers []RequirementsAnswer
		if answers, err = answerRequirements(os.Args[2]); err == nil {
			err = json.NewEncoder(os.Stdout).Encode(answers)
		}
	default:
		err = fmt.Errorf("unknown command %q: want facts, hashes or requirements", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fidelity:", err)
	os.Exit(1)
}
