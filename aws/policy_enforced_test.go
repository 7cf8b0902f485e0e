package aws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"

	"github.com/nodepilot/nodepilot/aws/emulator"
	"github.com/nodepilot/nodepilot/aws/policy"
	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/internal/eventually"
)

// The proof that the controller policy is sufficient: the provider's whole story runs against
// the emulator while the emulator enforces the rendered policy, resource ARNs and conditions
// included, and no call is refused. The converse, that no statement is superfluous: without
// any one of them the step of the story that first needs it fails, the emulator's refusal names
// the action, the provider's error says so, nothing is orphaned, and once the policy is whole
// the step succeeds and the story goes on.

// controllerPolicy is the controller policy rendered for the emulator's account, region and
// queue, cluster "test" and the node class's role; without names statements to leave out.
func controllerPolicy(t *testing.T, without ...string) *policy.Evaluator {
	t.Helper()
	doc, err := policy.Render(policy.Params{Partition: "aws", Region: testRegion, AccountID: "123456789012", ClusterName: "test",
		QueueName: "test", NodeRole: emulatorNodeClass().Spec.Role})
	if err != nil {
		t.Fatal(err)
	}
	if len(without) > 0 {
		var parsed map[string]any
		must(t, json.Unmarshal(doc, &parsed))
		var kept []any
		for _, s := range parsed["Statement"].([]any) {
			if !slices.Contains(without, s.(map[string]any)["Sid"].(string)) {
				kept = append(kept, s)
			}
		}
		if len(kept) != len(parsed["Statement"].([]any))-len(without) {
			t.Fatalf("the policy has no statement among %v", without)
		}
		parsed["Statement"] = kept
		doc, err = json.Marshal(parsed)
		must(t, err)
	}
	ev, err := policy.NewEvaluator(doc)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// story is the provider's seed story against the emulator: prices and types, the node class's
// resolution (with its instance profile), spot and on-demand launches, reads, drift, an
// interruption through the queue, garbage collection, deletion, and the node class's deletion.
type story struct {
	env *emulatorEnv
	nc  *awsv1.EC2NodeClass
	// live are the NodeClaims launched and not yet deleted, by name; spot names the spot one.
	live map[string]*karpv1.NodeClaim
	spot string
	// launches numbers the NodeClaims: one whose launch failed is replaced by a new one, as the
	// engine replaces it (its client token is spent).
	launches int
}

type storyStep struct {
	name string
	run  func(context.Context) error
}

func newStory(env *emulatorEnv) *story {
	return &story{env: env, nc: emulatorNodeClass(), live: map[string]*karpv1.NodeClaim{}}
}

func (s *story) steps() []storyStep {
	return []storyStep{
		{"refresh", func(ctx context.Context) error { return s.env.p.Refresh(ctx) }},
		{"node class status", s.nodeClassStatus},
		{"custom AMIs", s.customAMIs},
		{"launch spot", func(ctx context.Context) (err error) {
			s.spot, err = s.launch(ctx, "spot", karpv1.CapacityTypeSpot)
			return err
		}},
		{"launch on-demand", func(ctx context.Context) error {
			_, err := s.launch(ctx, "on-demand", karpv1.CapacityTypeOnDemand)
			return err
		}},
		{"get and list", s.getAndList},
		{"drift", s.drift},
		{"interruption", s.interruption},
		{"garbage collection", s.garbageCollection},
		{"delete", s.deleteAll},
		{"node class deletion", s.deleteNodeClass},
	}
}

func (s *story) nodeClassStatus(ctx context.Context) error {
	st := s.env.p.NodeClassStatus(ctx, s.nc)
	var failed []string
	for _, c := range st.Conditions {
		if c.Status != metav1.ConditionTrue && c.Type != awsv1.ConditionTypeReady {
			failed = append(failed, c.Type+": "+c.Message)
		}
	}
	if len(failed) > 0 {
		return errors.New(strings.Join(failed, "; "))
	}
	s.nc.Status = st
	return nil
}

// customAMIs resolves the node class with AMIs selected by tag (DescribeImages) rather than by
// an alias (SSM's public parameters).
func (s *story) customAMIs(ctx context.Context) error {
	nc := s.nc.DeepCopy()
	nc.Spec.AMIFamily = ptr.To(awsv1.AMIFamilyAL2023)
	nc.Spec.AMISelectorTerms = []awsv1.AMISelectorTerm{{Tags: map[string]string{"team": "platform"}, Owner: "self"}}
	st := s.env.p.NodeClassStatus(ctx, nc)
	if len(st.AMIs) == 0 {
		return fmt.Errorf("no custom AMI: %v", meta.FindStatusCondition(st.Conditions, awsv1.ConditionTypeAMIsReady))
	}
	return nil
}

// launch launches a new NodeClaim of a capacity type and returns its name.
func (s *story) launch(ctx context.Context, role, capacityType string) (string, error) {
	s.launches++
	name := fmt.Sprintf("story-%s-%d", role, s.launches)
	got, err := s.env.p.Create(ctx, testNodeClaim(name, in(corev1.LabelInstanceTypeStable, "m5.large", "c5.large"),
		in(karpv1.CapacityTypeLabelKey, capacityType)))
	if err != nil {
		return "", err
	}
	if got.Labels[karpv1.CapacityTypeLabelKey] != capacityType {
		return "", fmt.Errorf("%s launched as %s, want %s", name, got.Labels[karpv1.CapacityTypeLabelKey], capacityType)
	}
	s.live[name] = got
	return name, nil
}

func (s *story) getAndList(ctx context.Context) error {
	for _, c := range s.live {
		if _, err := s.env.p.Get(ctx, c.Status.ProviderID); err != nil {
			return err
		}
	}
	list, err := s.env.p.List(ctx)
	if err == nil && len(list) != len(s.live) {
		err = fmt.Errorf("listed %d instances, want %d", len(list), len(s.live))
	}
	return err
}

func (s *story) drift(ctx context.Context) error {
	s.env.clk.Step(DefaultSelectorTTL) // the selectors are resolved again
	for _, c := range s.live {
		if reason, err := s.env.p.IsDrifted(ctx, c); err != nil || reason != "" {
			return fmt.Errorf("drift of %s: %q, %w", c.Name, reason, err)
		}
	}
	return nil
}

// interruption runs the interruption queue, interrupts the spot instance, and waits until its
// event is handled and the message deleted; the engine then deletes the NodeClaim.
func (s *story) interruption(ctx context.Context) error {
	spot := s.live[s.spot]
	id, _ := instanceID(spot.Status.ProviderID)
	events := make(chan cloudprovider.Interruption, 4)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- s.env.p.Interruptions(s.env.em.QueueName()).Run(runCtx, func(_ context.Context, e cloudprovider.Interruption) error {
			events <- e
			return nil
		})
	}()
	deletes := s.env.em.CallCounts()["DeleteMessage"]
	if err := s.env.em.Interrupt(emulator.Interruption{Kind: emulator.SpotInterruption, InstanceID: id}); err != nil {
		return err
	}
	select {
	case e := <-events:
		if e.Kind != cloudprovider.SpotInterruption || e.ProviderID != spot.Status.ProviderID {
			return fmt.Errorf("event %+v, want the spot interruption of %s", e, spot.Status.ProviderID)
		}
	case err := <-done:
		return fmt.Errorf("the interruption queue stopped: %w", err)
	case <-time.After(10 * time.Second):
		return errors.New("no interruption event within 10s")
	}
	if err := eventually.Wait(ctx, 10*time.Second, "the handled message deleted", func(context.Context) (bool, string) {
		return s.env.em.CallCounts()["DeleteMessage"] != deletes, ""
	}); err != nil {
		return err
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		return fmt.Errorf("the interruption queue stopped with %w", err)
	}
	return s.remove(ctx, spot)
}

// garbageCollection launches an instance whose NodeClaim the cluster then does not know, and
// collects it.
func (s *story) garbageCollection(ctx context.Context) error {
	name, err := s.launch(ctx, "leaked", karpv1.CapacityTypeOnDemand)
	if err != nil {
		return err
	}
	leaked := s.live[name]
	s.env.clk.Step(DefaultGCGracePeriod)
	var known []*karpv1.NodeClaim
	for n, c := range s.live {
		if n != name {
			known = append(known, c)
		}
	}
	records, err := s.env.p.CollectGarbage(ctx, known)
	if err != nil {
		return err
	}
	if len(records) != 1 || records[0].ProviderID != leaked.Status.ProviderID {
		return fmt.Errorf("collected %+v, want the leaked instance", records)
	}
	delete(s.live, name)
	return nil
}

func (s *story) deleteAll(ctx context.Context) error {
	for _, name := range slices.Sorted(maps.Keys(s.live)) {
		if err := s.remove(ctx, s.live[name]); err != nil {
			return err
		}
	}
	return nil
}

// remove deletes a NodeClaim's instance until it is gone, as the engine's termination does.
func (s *story) remove(ctx context.Context, c *karpv1.NodeClaim) error {
	for range 3 {
		err := s.env.p.Delete(ctx, c)
		if cloudprovider.IsNodeClaimNotFound(err) {
			delete(s.live, c.Name)
			return nil
		}
		if err != nil {
			return err
		}
		s.env.clk.Step(time.Minute)
	}
	return fmt.Errorf("nodeclaim %s is not gone after three deletions", c.Name)
}

func (s *story) deleteNodeClass(ctx context.Context) error {
	if err := s.env.p.DeleteInstanceProfile(ctx, s.nc); err != nil {
		return err
	}
	if left := s.profiles(); len(left) > 0 {
		return fmt.Errorf("instance profiles %v left after the node class's deletion", left)
	}
	return nil
}

// profiles lists the instance profiles the story's provider made, under the node class's path.
func (s *story) profiles() []string {
	var out []string
	for _, name := range s.env.em.InstanceProfiles() {
		if strings.HasPrefix(name, "test_") {
			out = append(out, name)
		}
	}
	return out
}

// run runs the steps in order and returns the first failure, naming its step.
func (s *story) run(ctx context.Context) (string, error) {
	for _, step := range s.steps() {
		if err := step.run(ctx); err != nil {
			return step.name, err
		}
	}
	return "", nil
}

// orphans lists the live instances that belong to no NodeClaim the story holds: what the
// cluster would never delete.
func (s *story) orphans() []string {
	var out []string
	for _, inst := range s.env.em.Instances() {
		if inst.State == "terminated" || inst.State == "shutting-down" {
			continue
		}
		if _, ok := s.live[inst.Tags[awsv1.TagKeyNodeClaim]]; !ok {
			out = append(out, inst.ID+" (nodeclaim "+inst.Tags[awsv1.TagKeyNodeClaim]+")")
		}
	}
	return out
}

// TestPolicyIsSufficient runs the story under the controller policy: no call is refused, the
// provider calls every operation its clients list, and every action the policy allows is used.
func TestPolicyIsSufficient(t *testing.T) {
	env := startEmulator(t, func(c *emulator.Config) { c.Policy = controllerPolicy(t) })
	s := newStory(env)
	if step, err := s.run(context.Background()); err != nil {
		t.Errorf("step %q: %v", step, err)
	}
	for _, r := range env.em.Refusals() {
		t.Errorf("the policy refused %s (%s on %s): %s", r.Operation, r.Action, r.Resource, r.Message)
	}
	if denied := env.clients.Calls.Denied(); len(denied) > 0 {
		t.Errorf("the provider saw %v denied", denied)
	}
	called := env.clients.Calls.Counts()
	for action := range calledActions() {
		if called[action] == 0 {
			t.Errorf("the story never calls %s, which the provider's clients list", action)
		}
	}
	allowed := env.em.AllowedActions()
	actions, err := policy.Actions()
	must(t, err)
	for _, action := range actions {
		if allowed[action] == 0 {
			t.Errorf("the story never used %s, which the policy allows", action)
		}
	}
	t.Logf("authorizations allowed under the policy: %v", allowed)
}

// removal is a statement left out of the policy, the step that then fails, and the action the
// emulator refuses.
type removal struct {
	statement, failsAt, action string
}

// removals are the policy's statements, each at the first step of the story that needs it; a
// step's are in the order its calls are made, so that an attempt that fails on one does not
// complete (and cache) what a later one needs.
func removals() []removal {
	return []removal{
		{statement: "ReadEC2Facts", failsAt: "refresh", action: "ec2:DescribeInstanceTypes"},
		{statement: "ReadOnDemandPrices", failsAt: "refresh", action: "pricing:GetProducts"},
		{statement: "ReadInstanceProfiles", failsAt: "node class status", action: "iam:GetInstanceProfile"},
		{statement: "CreateOwnInstanceProfiles", failsAt: "node class status", action: "iam:CreateInstanceProfile"},
		{statement: "ManageOwnInstanceProfiles", failsAt: "node class status", action: "iam:AddRoleToInstanceProfile"},
		{statement: "PassNodeRoleToEC2", failsAt: "node class status", action: "iam:PassRole"},
		// Last of its step: an attempt that fails on it completes the instance profile.
		{statement: "ReadPublicAMIParameters", failsAt: "node class status", action: "ssm:GetParameter"},
		{statement: "CreateOwnTaggedResources", failsAt: "launch spot", action: "ec2:CreateLaunchTemplate"},
		{statement: "TagOnlyWhileCreating", failsAt: "launch spot", action: "ec2:CreateTags"},
		{statement: "LaunchFromSharedResources", failsAt: "launch spot", action: "ec2:CreateFleet"},
		{statement: "LaunchFromOwnLaunchTemplates", failsAt: "launch spot", action: "ec2:CreateFleet"},
		// Once the profile holds the role, a launch passes it: EC2 refuses it in the fleet's
		// errors, not as the call's error, and the provider takes it for a denial all the same.
		{statement: "PassNodeRoleToEC2", failsAt: "launch spot", action: "iam:PassRole"},
		{statement: "ReadInterruptionQueue", failsAt: "interruption", action: "sqs:GetQueueUrl"},
		// The interrupted spot instance is the first the story deletes.
		{statement: "TerminateOwnInstances", failsAt: "interruption", action: "ec2:TerminateInstances"},
	}
}

// checkRefusal checks a step's failure without a statement: the emulator refused its action
// (among the refusals since since), the provider's error names the action and, when the call
// itself was refused, the policy file; and nothing is orphaned.
func checkRefusal(t *testing.T, s *story, r removal, since int, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s succeeded without %s", r.failsAt, r.statement)
	}
	t.Logf("%s without %s: %v", r.failsAt, r.statement, err)
	refusals := s.env.em.Refusals()[since:]
	if !slices.ContainsFunc(refusals, func(x emulator.Refusal) bool { return x.Action == r.action }) {
		t.Errorf("the emulator refused %+v, want %s among them", refusals, r.action)
	}
	if !strings.Contains(err.Error(), "AWS denied "+r.action+":") {
		t.Errorf("the provider's error does not say AWS denied %s: %v", r.action, err)
	}
	if !strings.Contains(err.Error(), PolicyFile) {
		t.Errorf("the provider's error does not point at %s: %v", PolicyFile, err)
	}
	if denied := s.env.clients.Calls.Denied(); !slices.Contains(denied, r.action) {
		t.Errorf("the provider's denied actions %v lack %s", denied, r.action)
	}
	if orphans := s.orphans(); len(orphans) > 0 {
		t.Errorf("instances of no NodeClaim: %v", orphans)
	}
}

// TestEveryStatementIsNeeded runs the story once under the controller policy and, before each
// step, takes out in turn each statement that the step is the first to need: the step fails as
// checkRefusal expects; then, with the policy whole again, it succeeds (the engine's retry),
// and the story goes on. At the end every instance and instance profile is gone.
func TestEveryStatementIsNeeded(t *testing.T) {
	full := controllerPolicy(t)
	env := startEmulator(t, func(c *emulator.Config) { c.Policy = full })
	s := newStory(env)
	ctx := context.Background()
	byStep := map[string][]removal{}
	for _, r := range removals() {
		byStep[r.failsAt] = append(byStep[r.failsAt], r)
	}
	statements, err := policy.Statements()
	must(t, err)
	for _, st := range statements {
		if !slices.ContainsFunc(removals(), func(r removal) bool { return r.statement == st.Sid }) {
			t.Errorf("no case removes statement %q", st.Sid)
		}
	}
	for _, step := range s.steps() {
		for _, r := range byStep[step.name] {
			env.clk.Step(DefaultSelectorTTL) // the selectors are resolved afresh
			env.em.Enforce(controllerPolicy(t, r.statement))
			since := len(env.em.Refusals())
			err := step.run(ctx)
			env.em.Enforce(full)
			checkRefusal(t, s, r, since, err)
		}
		if err := step.run(ctx); err != nil {
			t.Fatalf("step %q with the whole policy: %v", step.name, err)
		}
	}
	for _, inst := range env.em.Instances() {
		if inst.State != "terminated" && inst.State != "shutting-down" {
			t.Errorf("instance %s (nodeclaim %q) left %s", inst.ID, inst.Tags[awsv1.TagKeyNodeClaim], inst.State)
		}
	}
}

// TestStoryWithoutPassRole runs the whole story under the policy without PassNodeRoleToEC2
// from the start: it fails where the node class's profile is given the node role, launches
// nothing, and the profile it made goes with the node class once the policy is whole.
func TestStoryWithoutPassRole(t *testing.T) {
	r := removal{statement: "PassNodeRoleToEC2", failsAt: "node class status", action: "iam:PassRole"}
	env := startEmulator(t, func(c *emulator.Config) { c.Policy = controllerPolicy(t, r.statement) })
	s := newStory(env)
	ctx := context.Background()
	step, err := s.run(ctx)
	if step != r.failsAt {
		t.Fatalf("the story failed at %q (%v), want %q", step, err, r.failsAt)
	}
	checkRefusal(t, s, r, 0, err)
	if n := len(env.em.Instances()); n != 0 {
		t.Errorf("%d instances launched", n)
	}
	env.em.Enforce(controllerPolicy(t))
	if err := s.deleteNodeClass(ctx); err != nil {
		t.Error(err)
	}
}
