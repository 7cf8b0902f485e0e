package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nodepilot/nodepilot/aws/policy"
)

// The shapes AWS accepts for what iam-policy puts in ARNs and conditions: a value of another
// shape would give a policy that loads yet matches nothing, and the controller's calls would
// fail with AccessDenied long after.
var (
	// accountPattern is an AWS account ID.
	accountPattern = regexp.MustCompile(`^[0-9]{12}$`)
	// regionPattern covers every partition's regions (us-east-1, us-gov-west-1, eusc-de-east-1).
	regionPattern = regexp.MustCompile(`^[a-z]{2,4}(-[a-z]+){1,2}-[0-9]+$`)
	// partitionPattern is aws or aws-SOMETHING.
	partitionPattern = regexp.MustCompile(`^aws(-[a-z]+)*$`)
	// clusterNamePattern is EKS's rule for cluster names (CreateCluster's name, up to 100).
	clusterNamePattern = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z_-]{0,99}$`)
	// queueNamePattern is SQS's rule for queue names.
	queueNamePattern = regexp.MustCompile(`^[0-9A-Za-z_-]{1,80}(\.fifo)?$`)
	// roleNamePattern is IAM's rule for role names.
	roleNamePattern = regexp.MustCompile(`^[\w+=,.@-]{1,64}$`)
)

// iamPolicyFlags say which account, region and cluster the policy is for.
type iamPolicyFlags struct {
	clusterName, account, region, partition, queue, nodeRole string
}

func iamPolicyCommand(out io.Writer) *cobra.Command {
	var f iamPolicyFlags
	cmd := &cobra.Command{
		Use:   "iam-policy --cluster-name NAME --account ID --region REGION [--partition P] [--interruption-queue NAME] [--node-role NAME]",
		Short: "Print the least-privilege IAM policy the controller needs, filled in for a cluster",
		Long: `iam-policy prints the IAM policy nodepilot's controller needs for one cluster: the EC2, IAM,
SQS, SSM and Pricing calls it makes, on resources tagged for the cluster where AWS allows
conditions. The defaults follow Karpenter's getting-started names, so a cluster moved from Karpenter
keeps its queue and node role:

  nodepilot iam-policy --cluster-name my-cluster --account 111122223333 --region eu-west-1 > policy.json
  aws iam create-policy --policy-name NodepilotControllerPolicy-my-cluster --policy-document file://policy.json

Attach it to the role the controller's ServiceAccount assumes (IRSA or EKS Pod Identity).`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			params, err := f.params()
			if err != nil {
				return err
			}
			doc, err := policy.Render(params)
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			if err := json.Indent(&buf, doc, "", "  "); err != nil {
				return fmt.Errorf("controller policy: %w", err)
			}
			buf.WriteByte('\n')
			_, err = buf.WriteTo(out)
			return err
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.clusterName, "cluster-name", "", "the EKS cluster's name, which the policy's tag conditions require on what the controller creates")
	fs.StringVar(&f.account, "account", "", "the AWS account ID (12 digits) the cluster runs in")
	fs.StringVar(&f.region, "region", "", "the cluster's AWS region")
	fs.StringVar(&f.partition, "partition", "", "the AWS partition (default: the region's: aws-cn for cn-*, aws-us-gov for us-gov-*, else aws)")
	fs.StringVar(&f.queue, "interruption-queue", "", "the SQS queue of interruption events, as given to the controller (default: the cluster name, Karpenter's convention)")
	fs.StringVar(&f.nodeRole, "node-role", "", "the IAM role nodes run as, the EC2NodeClasses' spec.role (default: KarpenterNodeRole-CLUSTER, Karpenter's convention)")
	return cmd
}

// params checks the flags and fills in the defaults.
func (f iamPolicyFlags) params() (policy.Params, error) {
	switch {
	case f.clusterName == "":
		return policy.Params{}, errors.New("--cluster-name is required: the EKS cluster's name (aws eks list-clusters)")
	case !clusterNamePattern.MatchString(f.clusterName):
		return policy.Params{}, fmt.Errorf("--cluster-name %q: not an EKS cluster name: use up to 100 letters, digits, - and _, starting with a letter or digit", f.clusterName)
	case !accountPattern.MatchString(f.account):
		return policy.Params{}, fmt.Errorf("--account %q: an AWS account ID is 12 digits (aws sts get-caller-identity --query Account)", f.account)
	case !regionPattern.MatchString(f.region):
		return policy.Params{}, fmt.Errorf("--region %q: not an AWS region: give the cluster's, such as us-east-1 (aws configure get region)", f.region)
	case f.partition != "" && !partitionPattern.MatchString(f.partition):
		return policy.Params{}, fmt.Errorf("--partition %q: not an AWS partition: use aws, aws-cn or aws-us-gov, or leave it out to derive it from --region", f.partition)
	}
	p := policy.Params{
		Partition:   cmp.Or(f.partition, partitionOf(f.region)),
		Region:      f.region,
		AccountID:   f.account,
		ClusterName: f.clusterName,
		QueueName:   cmp.Or(f.queue, f.clusterName),
		NodeRole:    cmp.Or(f.nodeRole, "KarpenterNodeRole-"+f.clusterName),
	}
	if !queueNamePattern.MatchString(p.QueueName) {
		return policy.Params{}, fmt.Errorf("--interruption-queue %q: not an SQS queue name: give its name (up to 80 letters, digits, - and _), not its URL", p.QueueName)
	}
	if !roleNamePattern.MatchString(p.NodeRole) {
		return policy.Params{}, fmt.Errorf("--node-role %q: not an IAM role name: give its name (up to 64 characters), not its ARN", p.NodeRole)
	}
	return p, nil
}

// partitionOf is a region's partition, by the region patterns of the AWS SDK's partitions.json.
func partitionOf(region string) string {
	for _, p := range []struct{ prefix, partition string }{
		{"cn-", "aws-cn"},
		{"us-gov-", "aws-us-gov"},
		{"us-iso-", "aws-iso"},
		{"us-isob-", "aws-iso-b"},
		{"eu-isoe-", "aws-iso-e"},
		{"us-isof-", "aws-iso-f"},
		{"eusc-", "aws-eusc"},
	} {
		if strings.HasPrefix(region, p.prefix) {
			return p.partition
		}
	}
	return "aws"
}
