//go:build deps

package main

// The packages facts reads but the command does not link: importing them under a build tag
// keeps their dependencies in go.mod without compiling them.
import (
	_ "github.com/aws/karpenter-provider-aws/pkg/cloudprovider"
	_ "github.com/aws/karpenter-provider-aws/pkg/controllers"
	_ "github.com/aws/karpenter-provider-aws/pkg/operator"
	_ "sigs.k8s.io/karpenter/pkg/controllers"
)
