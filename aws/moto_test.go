//go:build linux

package aws

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"

	"github.com/nodepilot/nodepilot/aws/policy"
	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/internal/eventually"
)

// startMoto starts moto_server on a free loopback port in its own process group and returns
// its URL. The group is killed when the test ends, pass or fail, and the kernel kills the
// server if the test binary dies first.
func startMoto(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("moto_server")
	if err != nil {
		const missing = "moto_server is not installed on this machine (pip install 'moto[server]'): the provider's request shapes were NOT checked against moto"
		if os.Getenv("CI") != "" {
			t.Fatal(missing + " (CI is set: the CI machine's image has it, so its absence is a broken machine)")
		}
		t.Skip("!!! MOTO TIER SKIPPED: " + missing + " !!!")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	logPath := filepath.Join(t.TempDir(), "moto.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "-H", "127.0.0.1", "-p", strconv.Itoa(port))
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting moto_server: %v", err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the whole group: pyenv shims may fork
		_ = cmd.Wait()
		logFile.Close()
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	err = eventually.Wait(t.Context(), 60*time.Second, "moto_server answering on "+url, func(context.Context) (bool, string) {
		resp, err := http.Get(url + "/moto-api/")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return true, ""
	})
	if err != nil {
		out, _ := os.ReadFile(logPath)
		t.Fatalf("%v\n%s", err, out)
	}
	return url
}

// motoWorld is what the moto tier creates before the provider runs.
type motoWorld struct {
	subnets     []ec2types.Subnet // tagged for discovery, the first three zones
	smallSubnet string            // a second, smaller subnet in the first zone
	nodesSG     string
	otherSG     string
	amd64AMI    string
	arm64AMI    string
	otherAMI    string
	queueURL    string
}

// setupMoto tags the default VPC's subnets, creates security groups, tags AMIs, creates the
// node role and the interruption queue.
func setupMoto(t *testing.T, ctx context.Context, raw *ec2.Client, iamc *iam.Client, sqsc *sqs.Client) motoWorld {
	t.Helper()
	var w motoWorld
	discovery := []ec2types.Tag{{Key: sdkaws.String("karpenter.sh/discovery"), Value: sdkaws.String("test")}}
	subnets, err := raw.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{})
	must(t, err)
	slices.SortFunc(subnets.Subnets, func(a, b ec2types.Subnet) int { return strings.Compare(*a.AvailabilityZone, *b.AvailabilityZone) })
	w.subnets = subnets.Subnets[:3]
	for _, s := range w.subnets {
		_, err := raw.CreateTags(ctx, &ec2.CreateTagsInput{Resources: []string{*s.SubnetId}, Tags: discovery})
		must(t, err)
	}
	vpc := *w.subnets[0].VpcId
	small, err := raw.CreateSubnet(ctx, &ec2.CreateSubnetInput{VpcId: &vpc, CidrBlock: sdkaws.String("172.31.96.0/24"),
		AvailabilityZone:  w.subnets[0].AvailabilityZone,
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeSubnet, Tags: discovery}}})
	must(t, err)
	w.smallSubnet = *small.Subnet.SubnetId
	for name, tag := range map[string]ec2types.Tag{"nodes": discovery[0], "other": {Key: sdkaws.String("role"), Value: sdkaws.String("other")}} {
		sg, err := raw.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{GroupName: sdkaws.String(name), Description: sdkaws.String(name), VpcId: &vpc,
			TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeSecurityGroup, Tags: []ec2types.Tag{tag}}}})
		must(t, err)
		if name == "nodes" {
			w.nodesSG = *sg.GroupId
		} else {
			w.otherSG = *sg.GroupId
		}
	}
	images, err := raw.DescribeImages(ctx, &ec2.DescribeImagesInput{Owners: []string{"amazon"}})
	must(t, err)
	slices.SortFunc(images.Images, func(a, b ec2types.Image) int { return strings.Compare(*a.ImageId, *b.ImageId) })
	for _, img := range images.Images {
		switch {
		case img.Architecture == ec2types.ArchitectureValuesX8664 && w.amd64AMI == "":
			w.amd64AMI = *img.ImageId
		case img.Architecture == ec2types.ArchitectureValuesX8664 && w.otherAMI == "":
			w.otherAMI = *img.ImageId
		case img.Architecture == ec2types.ArchitectureValuesArm64 && w.arm64AMI == "":
			w.arm64AMI = *img.ImageId
		}
	}
	if w.amd64AMI == "" || w.otherAMI == "" {
		t.Fatalf("moto lists too few x86_64 images owned by amazon")
	}
	tagged := []string{w.amd64AMI}
	if w.arm64AMI != "" {
		tagged = append(tagged, w.arm64AMI)
	}
	_, err = raw.CreateTags(ctx, &ec2.CreateTagsInput{Resources: tagged, Tags: []ec2types.Tag{{Key: sdkaws.String("nodepilot-test"), Value: sdkaws.String("yes")}}})
	must(t, err)
	_, err = iamc.CreateRole(ctx, &iam.CreateRoleInput{RoleName: sdkaws.String("test-nodes"),
		AssumeRolePolicyDocument: sdkaws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}`)})
	must(t, err)
	q, err := sqsc.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: sdkaws.String("test-interruptions"),
		Attributes: map[string]string{"VisibilityTimeout": "1"}})
	must(t, err)
	w.queueURL = *q.QueueUrl
	return w
}

func motoNodeClass() *awsv1.EC2NodeClass {
	nc := testNodeClass("test-nodes", awsv1.AMISelectorTerm{Tags: map[string]string{"nodepilot-test": "*"}})
	nc.Spec.AMIFamily = ptr.To(awsv1.AMIFamilyAL2023) // an AMI selected by tag needs its family
	return nc
}

// TestMoto runs the provider's launch template, CreateFleet, DescribeInstances,
// TerminateInstances and SQS flows against moto, an independent AWS emulator, as a check of
// the request shapes the SDK sends for them.
func TestMoto(t *testing.T) {
	url := startMoto(t)
	ctx := context.Background()
	cfg := testSDKConfig(t, nil)
	clients := NewClients(cfg, Endpoints{}.All(url), quietLog())
	raw := ec2.NewFromConfig(cfg, func(o *ec2.Options) { o.BaseEndpoint = &url })
	sqsc := sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.BaseEndpoint = &url })
	iamc := iam.NewFromConfig(cfg, func(o *iam.Options) { o.BaseEndpoint = &url })
	w := setupMoto(t, ctx, raw, iamc, sqsc)
	store := &nodeClassStore{}
	store.put(motoNodeClass())
	p, clk := testProvider(t, clients, store)

	t.Run("refresh keeps the catalog prices when the Pricing API fails", func(t *testing.T) {
		err := p.Refresh(ctx)
		if err == nil || !strings.Contains(err.Error(), "on-demand prices") {
			t.Errorf("refresh error %v, want the Pricing API's failure (moto has no Pricing API)", err)
		}
		st := p.Status()
		if st.InstanceTypes.Source != "ec2" || st.InstanceTypes.Count < 500 || st.InstanceTypes.Err != "" {
			t.Errorf("instance types %+v, want hundreds read from ec2", st.InstanceTypes)
		}
		if st.OnDemandPrices.Source != cloudprovider.PriceCatalog || st.OnDemandPrices.Err == "" {
			t.Errorf("on-demand prices %+v, want the catalog with the API's error", st.OnDemandPrices)
		}
		if st.SpotPrices.Source != cloudprovider.PriceSpotHistory || st.SpotPrices.Count == 0 {
			t.Errorf("spot prices %+v, want moto's spot price history", st.SpotPrices)
		}
	})

	t.Run("node class status", func(t *testing.T) {
		st := p.NodeClassStatus(ctx, motoNodeClass())
		if len(st.Subnets) != 4 || len(st.SecurityGroups) != 1 || st.SecurityGroups[0].ID != w.nodesSG {
			t.Errorf("subnets %v groups %v, want the 4 tagged subnets and group %s", st.Subnets, st.SecurityGroups, w.nodesSG)
		}
		if len(st.AMIs) == 0 || st.AMIs[0].ID != w.amd64AMI {
			t.Errorf("AMIs %+v, want %s first (amd64)", st.AMIs, w.amd64AMI)
		}
		if st.InstanceProfile != p.InstanceProfileName(motoNodeClass()) {
			t.Errorf("instance profile %q, want %q", st.InstanceProfile, p.InstanceProfileName(motoNodeClass()))
		}
		prof, err := iamc.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: &st.InstanceProfile})
		if err != nil || len(prof.InstanceProfile.Roles) != 1 || *prof.InstanceProfile.Roles[0].RoleName != "test-nodes" {
			t.Errorf("instance profile in IAM: %v, %v; want it to hold role test-nodes", prof, err)
		}
		for _, c := range st.Conditions {
			if c.Status != metav1.ConditionTrue {
				t.Errorf("condition %s is %s: %s", c.Type, c.Status, c.Message)
			}
		}
	})

	var launchedClaim *karpv1.NodeClaim
	t.Run("launch, get, list", func(t *testing.T) {
		if _, err := p.InstanceTypes(ctx, testNodePool()); err != nil {
			t.Fatal(err)
		}
		claim := testNodeClaim("default-1", in(corev1.LabelInstanceTypeStable, "m5.large", "c5.large"))
		before := clients.Calls.Counts()
		got, err := p.Create(ctx, claim)
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		if calls := diffCounts(before, clients.Calls.Counts()); !mapsEqual(calls, map[string]int64{"ec2:CreateLaunchTemplate": 1, "ec2:CreateFleet": 1}) {
			t.Errorf("first launch called %v, want one CreateLaunchTemplate and one CreateFleet", calls)
		}
		launchedClaim = got
		id, err := instanceID(got.Status.ProviderID)
		if err != nil {
			t.Fatal(err)
		}
		it, zone := got.Labels[corev1.LabelInstanceTypeStable], got.Labels[corev1.LabelTopologyZone]
		if (it != "m5.large" && it != "c5.large") || got.Labels[corev1.LabelArchStable] != "amd64" || got.Labels[corev1.LabelTopologyRegion] != testRegion ||
			got.Labels[karpv1.CapacityTypeLabelKey] != karpv1.CapacityTypeSpot || got.Labels[awsv1.LabelInstanceCPU] != "2" {
			t.Errorf("labels %v, want a spot m5.large or c5.large (2 vCPUs) in %s", got.Labels, testRegion)
		}
		if got.Status.ProviderID != "aws:///"+zone+"/"+id || got.Status.ImageID != w.amd64AMI || got.Status.Capacity.Cpu().Value() != 2 {
			t.Errorf("status %+v, want provider ID in %s, image %s, 2 CPUs", got.Status, zone, w.amd64AMI)
		}
		if got.Annotations[awsv1.AnnotationEC2NodeClassHash] != awsv1.Hash(motoNodeClass(), "Y2E=") {
			t.Errorf("annotations %v, want the node class hash", got.Annotations)
		}
		desc, err := raw.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: []string{id}})
		must(t, err)
		inst := desc.Reservations[0].Instances[0]
		tags := tagMap(inst.Tags)
		for k, v := range map[string]string{"kubernetes.io/cluster/test": "owned", awsv1.TagKeyEKSClusterName: "test", awsv1.TagKeyNodePool: "default",
			awsv1.TagKeyNodeClaim: "default-1", awsv1.TagKeyNodeClass: "default", "Name": "default-1", "team": "platform"} {
			if tags[k] != v {
				t.Errorf("instance tag %s=%q, want %q", k, tags[k], v)
			}
		}
		if zone == *w.subnets[0].AvailabilityZone && *inst.SubnetId == w.smallSubnet {
			t.Errorf("launched into the small subnet %s; the zone's subnet with the most free addresses is %s", w.smallSubnet, *w.subnets[0].SubnetId)
		}
		lts, err := raw.DescribeLaunchTemplateVersions(ctx, &ec2.DescribeLaunchTemplateVersionsInput{
			LaunchTemplateName: sdkaws.String(launchTemplateNameOf(t, raw, ctx)), Versions: []string{"$Latest"}})
		must(t, err)
		data := lts.LaunchTemplateVersions[0].LaunchTemplateData
		if data.MetadataOptions == nil || data.MetadataOptions.HttpTokens != ec2types.LaunchTemplateHttpTokensStateRequired ||
			sdkaws.ToInt32(data.MetadataOptions.HttpPutResponseHopLimit) != 1 || data.IamInstanceProfile == nil ||
			sdkaws.ToString(data.IamInstanceProfile.Name) != p.InstanceProfileName(motoNodeClass()) || sdkaws.ToString(data.UserData) == "" {
			t.Errorf("launch template data %+v, want IMDSv2 required, hop limit 1, the instance profile and user data", data)
		}
		// moto's CreateFleet does not apply the template's groups to the instance, so the request
		// shape is checked on the template.
		if !slices.Equal(data.SecurityGroupIds, []string{w.nodesSG}) {
			t.Errorf("launch template groups %v, want [%s]", data.SecurityGroupIds, w.nodesSG)
		}

		// A second launch of the same configuration reuses the template: one call.
		before = clients.Calls.Counts()
		second, err := p.Create(ctx, testNodeClaim("default-2", in(corev1.LabelInstanceTypeStable, "m5.large", "c5.large")))
		if err != nil {
			t.Fatalf("second create: %v", err)
		}
		if calls := diffCounts(before, clients.Calls.Counts()); !mapsEqual(calls, map[string]int64{"ec2:CreateFleet": 1}) {
			t.Errorf("second launch called %v, want CreateFleet only", calls)
		}
		gotBack, err := p.Get(ctx, second.Status.ProviderID)
		if err != nil || gotBack.Name != "default-2" || gotBack.Labels[karpv1.NodePoolLabelKey] != "default" ||
			gotBack.Labels[corev1.LabelInstanceTypeStable] != second.Labels[corev1.LabelInstanceTypeStable] {
			t.Errorf("get %+v, %v; want NodeClaim default-2 of NodePool default", gotBack, err)
		}
		list, err := p.List(ctx)
		if err != nil || len(list) != 2 {
			t.Fatalf("list %d, %v; want both instances", len(list), err)
		}

		// Delete: terminating, then gone.
		if err := p.Delete(ctx, second); err != nil {
			t.Errorf("delete: %v", err)
		}
		if err := p.Delete(ctx, second); !cloudprovider.IsNodeClaimNotFound(err) {
			t.Errorf("second delete: %v, want NodeClaimNotFound", err)
		}
		if _, err := p.Get(ctx, "aws:///us-east-1a/i-0123456789abcdef0"); !cloudprovider.IsNodeClaimNotFound(err) {
			t.Errorf("get of an unknown instance: %v, want NodeClaimNotFound", err)
		}
	})
	if launchedClaim == nil {
		t.FailNow()
	}

	t.Run("garbage collection", func(t *testing.T) {
		leaked, err := p.Create(ctx, testNodeClaim("leaked", in(corev1.LabelInstanceTypeStable, "m5.large")))
		if err != nil {
			t.Fatal(err)
		}
		claims := []*karpv1.NodeClaim{launchedClaim}
		if records, err := p.CollectGarbage(ctx, claims); err != nil || len(records) != 0 {
			t.Fatalf("GC within the grace period: %v, %v; want nothing", records, err)
		}
		clk.Step(time.Minute)
		records, err := p.CollectGarbage(ctx, claims)
		if err != nil {
			t.Fatal(err)
		}
		if len(records) != 1 || records[0].ProviderID != leaked.Status.ProviderID || !strings.Contains(records[0].Reason, `"leaked" does not exist`) {
			t.Fatalf("records %+v, want the leaked instance with its reason", records)
		}
		if _, err := p.Get(ctx, launchedClaim.Status.ProviderID); err != nil {
			t.Errorf("the claimed instance: %v", err)
		}
		if err := p.Delete(ctx, leaked); !cloudprovider.IsNodeClaimNotFound(err) {
			t.Errorf("the leaked instance after GC: %v, want it gone", err)
		}
	})

	t.Run("drift", func(t *testing.T) {
		// moto's CreateFleet leaves the template's security groups off the instance: put them on,
		// as EC2 would have.
		id, _ := instanceID(launchedClaim.Status.ProviderID)
		_, err := raw.ModifyInstanceAttribute(ctx, &ec2.ModifyInstanceAttributeInput{InstanceId: &id, Groups: []string{w.nodesSG}})
		must(t, err)
		check := func(change func(*awsv1.EC2NodeClass), want cloudprovider.DriftReason) {
			t.Helper()
			nc := motoNodeClass()
			change(nc)
			store.put(nc)
			clk.Step(DefaultSelectorTTL + time.Second) // the selector caches expire
			got, err := p.IsDrifted(ctx, launchedClaim)
			if err != nil || got != want {
				t.Errorf("drift %q, %v; want %q", got, err, want)
			}
		}
		check(func(*awsv1.EC2NodeClass) {}, "")
		check(func(nc *awsv1.EC2NodeClass) { nc.Spec.Tags["team"] = "payments" }, DriftNodeClass)
		check(func(nc *awsv1.EC2NodeClass) {
			nc.Spec.AMISelectorTerms = []awsv1.AMISelectorTerm{{ID: w.otherAMI}}
		}, DriftAMI)
		check(func(nc *awsv1.EC2NodeClass) {
			nc.Spec.SubnetSelectorTerms = []awsv1.SubnetSelectorTerm{{ID: w.smallSubnet}}
		}, DriftSubnet)
		check(func(nc *awsv1.EC2NodeClass) {
			nc.Spec.SecurityGroupSelectorTerms = []awsv1.SecurityGroupSelectorTerm{{ID: w.nodesSG}, {Tags: map[string]string{"role": "other"}}}
		}, DriftSecurityGroup)
		check(func(*awsv1.EC2NodeClass) {}, "")
	})

	t.Run("interruption queue", func(t *testing.T) {
		id, _ := instanceID(launchedClaim.Status.ProviderID)
		for _, body := range []string{
			eventBody(sourceEC2, detailSpotInterruption, fmt.Sprintf(`{"instance-id":%q,"instance-action":"terminate"}`, id)),
			"this is not an event",
			eventBody(sourceEC2, detailRebalanceRecommendation, `{"instance-id":"i-0123456789abcdef0"}`),
		} {
			_, err := sqsc.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &w.queueURL, MessageBody: sdkaws.String(body)})
			must(t, err)
		}
		events := make(chan cloudprovider.Interruption, 10)
		var mu sync.Mutex
		attempts := 0
		handle := func(_ context.Context, e cloudprovider.Interruption) error {
			events <- e
			mu.Lock()
			defer mu.Unlock()
			attempts++
			if attempts == 1 {
				return errors.New("the engine is busy") // the message must come back
			}
			return nil
		}
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- p.Interruptions("test-interruptions").Run(runCtx, handle) }()
		defer func() {
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("run ended with %v, want context.Canceled", err)
			}
		}()
		for i := range 2 {
			select {
			case e := <-events:
				if e.Kind != cloudprovider.SpotInterruption || e.InstanceID != id || e.ProviderID != launchedClaim.Status.ProviderID || !e.Drain {
					t.Errorf("event %d: %+v, want a spot interruption of %s to drain", i, e, launchedClaim.Status.ProviderID)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("event %d: not delivered within 30s", i)
			}
		}
		waitQueueEmpty(t, ctx, sqsc, w.queueURL)
		select {
		case e := <-events:
			t.Errorf("unexpected event %+v (the rebalance is for an instance of no cluster)", e)
		default:
		}
		o := offering{karpv1.CapacityTypeSpot, launchedClaim.Labels[corev1.LabelInstanceTypeStable], launchedClaim.Labels[corev1.LabelTopologyZone]}
		types, err := p.InstanceTypes(ctx, testNodePool())
		must(t, err)
		if of, ok := findOffering(types, o); !ok || of.Available {
			t.Errorf("offering %s after its spot interruption: %+v, want unavailable", o, of)
		}
	})

	t.Run("every call is allowed by the IAM policy", func(t *testing.T) {
		allowed, err := policy.Actions()
		must(t, err)
		for action := range clients.Calls.Counts() {
			if !slices.Contains(allowed, action) {
				t.Errorf("the provider called %s, which %s does not allow", action, PolicyFile)
			}
		}
	})
}

// launchTemplateNameOf returns the name of the one launch template the provider created.
func launchTemplateNameOf(t *testing.T, raw *ec2.Client, ctx context.Context) string {
	t.Helper()
	out, err := raw.DescribeLaunchTemplates(ctx, &ec2.DescribeLaunchTemplatesInput{})
	must(t, err)
	var names []string
	for _, lt := range out.LaunchTemplates {
		if strings.HasPrefix(*lt.LaunchTemplateName, launchTemplatePrefix) {
			names = append(names, *lt.LaunchTemplateName)
		}
	}
	if len(names) != 1 {
		t.Fatalf("launch templates %v, want exactly one of the provider's", names)
	}
	return names[0]
}

// waitQueueEmpty waits until the queue holds no message, visible or in flight.
func waitQueueEmpty(t *testing.T, ctx context.Context, sqsc *sqs.Client, url string) {
	t.Helper()
	eventually.True(t, 30*time.Second, "the queue empty", func(context.Context) (bool, string) {
		out, err := sqsc.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &url,
			AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages, sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible}})
		if err != nil {
			return false, err.Error()
		}
		left := out.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessages)] + "/" +
			out.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible)]
		return left == "0/0", "visible/in flight " + left
	})
}
