package enginetest

import (
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// DefaultNodeClass is the name of the EC2NodeClass that NodePool refers to.
const DefaultNodeClass = "default"

// NodePoolOption changes a NodePool before it is created.
type NodePoolOption func(*karpv1.NodePool)

// Require sets the NodePool's requirement on key (replacing any it had on that key).
func Require(key string, op corev1.NodeSelectorOperator, values ...string) NodePoolOption {
	return func(np *karpv1.NodePool) {
		reqs := np.Spec.Template.Spec.Requirements[:0]
		for _, r := range np.Spec.Template.Spec.Requirements {
			if r.Key != key {
				reqs = append(reqs, r)
			}
		}
		np.Spec.Template.Spec.Requirements = append(reqs, karpv1.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values})
	}
}

// Spot lets the NodePool launch spot as well as on-demand capacity.
func Spot() NodePoolOption {
	return Require(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, karpv1.CapacityTypeSpot, karpv1.CapacityTypeOnDemand)
}

// Limit bounds a resource of the NodePool ("cpu", "16").
func Limit(name corev1.ResourceName, quantity string) NodePoolOption {
	return func(np *karpv1.NodePool) {
		if np.Spec.Limits == nil {
			np.Spec.Limits = karpv1.Limits{}
		}
		np.Spec.Limits[name] = resource.MustParse(quantity)
	}
}

// NodePool creates a NodePool with sane defaults: on-demand, amd64, Linux, nodeClassRef to
// the EC2NodeClass "default" (created ready when missing), and the CRD's defaults
// (consolidation WhenEmptyOrUnderutilized after 0s, a 10% budget, expireAfter 720h). Options
// change it before it is stored; it is returned as stored.
func (e *Env) NodePool(name string, opts ...NodePoolOption) *karpv1.NodePool {
	e.T.Helper()
	e.NodeClass(DefaultNodeClass)
	np := &karpv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: karpv1.NodePoolSpec{Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
			NodeClassRef: &karpv1.NodeClassReference{Group: awsv1.Group, Kind: "EC2NodeClass", Name: DefaultNodeClass},
			Requirements: []karpv1.NodeSelectorRequirementWithMinValues{
				{Key: karpv1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{karpv1.CapacityTypeOnDemand}},
				{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{karpv1.ArchitectureAmd64}},
				{Key: corev1.LabelOSStable, Operator: corev1.NodeSelectorOpIn, Values: []string{string(corev1.Linux)}},
			},
		}}},
	}
	for _, o := range opts {
		o(np)
	}
	created, err := e.API.CreateNodePool(e.T.Context(), np)
	if err != nil {
		e.T.Fatalf("enginetest: creating nodepool %s: %v", name, err)
	}
	return created
}

// NodeClass returns the named EC2NodeClass, creating it when missing, Ready, with what its
// selectors would resolve to: a subnet in each of the Zones, a security group, an AMI per
// architecture and an instance profile.
func (e *Env) NodeClass(name string) *awsv1.EC2NodeClass {
	e.T.Helper()
	ctx := e.T.Context()
	if nc, err := e.API.NodeClass(name); err == nil {
		return nc
	} else if !apierrors.IsNotFound(err) {
		e.T.Fatalf("enginetest: ec2nodeclass %s: %v", name, err)
	}
	discovery := map[string]string{"karpenter.sh/discovery": "enginetest"}
	nc := &awsv1.EC2NodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: awsv1.EC2NodeClassSpec{
			Role:                       "KarpenterNodeRole-enginetest",
			AMISelectorTerms:           []awsv1.AMISelectorTerm{{Alias: "al2023@latest"}},
			SubnetSelectorTerms:        []awsv1.SubnetSelectorTerm{{Tags: discovery}},
			SecurityGroupSelectorTerms: []awsv1.SecurityGroupSelectorTerm{{Tags: discovery}},
		},
	}
	if _, err := e.API.CreateNodeClass(ctx, nc); err != nil {
		e.T.Fatalf("enginetest: creating ec2nodeclass %s: %v", name, err)
	}
	now := metav1.NewTime(e.Now())
	out, err := e.API.updateNodeClassStatus(ctx, name, func(nc *awsv1.EC2NodeClass) error {
		for i, zone := range Zones() {
			nc.Status.Subnets = append(nc.Status.Subnets, awsv1.Subnet{ID: "subnet-" + zone, Zone: zone, ZoneID: "use1-az" + string(rune('1'+i))})
		}
		nc.Status.SecurityGroups = []awsv1.SecurityGroup{{ID: "sg-enginetest", Name: "enginetest"}}
		for _, arch := range []string{karpv1.ArchitectureAmd64, karpv1.ArchitectureArm64} {
			nc.Status.AMIs = append(nc.Status.AMIs, awsv1.AMI{ID: "ami-" + arch, Name: "al2023-" + arch,
				Requirements: []corev1.NodeSelectorRequirement{{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{arch}}}})
		}
		nc.Status.InstanceProfile = "enginetest_" + name
		for _, t := range []string{awsv1.ConditionTypeSubnetsReady, awsv1.ConditionTypeSecurityGroupsReady, awsv1.ConditionTypeAMIsReady,
			awsv1.ConditionTypeInstanceProfileReady, awsv1.ConditionTypeValidationSucceeded, awsv1.ConditionTypeReady} {
			meta.SetStatusCondition(&nc.Status.Conditions, metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: t,
				LastTransitionTime: now, ObservedGeneration: nc.Generation})
		}
		return nil
	})
	if err != nil {
		e.T.Fatalf("enginetest: ec2nodeclass %s status: %v", name, err)
	}
	return out
}

// PDB creates a PodDisruptionBudget in namespace "default" over the pods matching selector;
// minAvailable and maxUnavailable are a count ("2") or a percentage ("50%"), "" for unset.
func (e *Env) PDB(name string, selector map[string]string, minAvailable, maxUnavailable string) *policyv1.PodDisruptionBudget {
	e.T.Helper()
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceDefault},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: selector}},
	}
	if minAvailable != "" {
		pdb.Spec.MinAvailable = ptr.To(intstr.Parse(minAvailable))
	}
	if maxUnavailable != "" {
		pdb.Spec.MaxUnavailable = ptr.To(intstr.Parse(maxUnavailable))
	}
	created, err := e.API.CreatePDB(e.T.Context(), pdb)
	if err != nil {
		e.T.Fatalf("enginetest: creating pdb %s: %v", name, err)
	}
	return created
}
