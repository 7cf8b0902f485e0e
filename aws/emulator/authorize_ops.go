package emulator

import (
	"cmp"
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/nodepilot/nodepilot/aws/policy"
)

// authorizerFor returns what AWS authorizes for an operation the emulator serves: one table,
// so that a test can tell that no served operation lacks an authorizer. The read-only
// operations need their action alone, on "*" (they have no resource-level permissions).
func authorizerFor(svc service, op string) authorizer {
	switch svc {
	case serviceEC2:
		switch op {
		case "DescribeInstanceTypes", "DescribeInstanceTypeOfferings", "DescribeSpotPriceHistory", "DescribeAvailabilityZones",
			"DescribeSubnets", "DescribeSecurityGroups", "DescribeImages", "DescribeLaunchTemplates", "DescribeInstances",
			"DescribeInstanceStatus", "DescribeCapacityReservations", "DescribePlacementGroups":
			return readOnly
		case "CreateLaunchTemplate":
			return (*Emulator).authCreateLaunchTemplate
		case "DeleteLaunchTemplate":
			return (*Emulator).authDeleteLaunchTemplate
		case "CreateFleet":
			return (*Emulator).authCreateFleet
		case "RunInstances":
			return (*Emulator).authRunInstances
		case "TerminateInstances":
			return (*Emulator).authTerminateInstances
		case "CreateTags":
			return (*Emulator).authCreateTags
		}
	case serviceIAM:
		switch op {
		case "GetInstanceProfile", "RemoveRoleFromInstanceProfile", "DeleteInstanceProfile":
			return (*Emulator).authInstanceProfile
		case "CreateInstanceProfile":
			return (*Emulator).authCreateInstanceProfile
		case "AddRoleToInstanceProfile":
			return (*Emulator).authAddRoleToInstanceProfile
		case "TagInstanceProfile":
			return (*Emulator).authTagInstanceProfile
		case "ListInstanceProfiles":
			return (*Emulator).authListInstanceProfiles
		case "GetRole":
			return (*Emulator).authGetRole
		}
	case serviceSQS:
		switch op {
		case "GetQueueUrl", "CreateQueue":
			return (*Emulator).authQueueByName
		case "SendMessage", "ReceiveMessage", "DeleteMessage":
			return (*Emulator).authQueueByURL
		}
	case serviceSSM:
		if op == "GetParameter" {
			return (*Emulator).authGetParameter
		}
	case servicePricing:
		if op == "GetProducts" {
			return readOnly
		}
	case serviceEKS:
		if op == "DescribeCluster" {
			return (*Emulator).authDescribeCluster
		}
	}
	return nil
}

func readOnly(_ *Emulator, c *authCall) []policy.Request {
	return []policy.Request{c.req(c.svc.String()+":"+c.op, nil)}
}

// createdTypes are the resource types a launch creates: an instance with its volume and
// network interface, and a spot request for spot capacity. (The emulator's launches use no
// key pair, placement group or capacity reservation, which AWS would authorize too.)
func createdTypes(capacityType string) []string {
	out := []string{"instance", "volume", "network-interface"}
	if capacityType == capacitySpot {
		out = append(out, "spot-instances-request")
	}
	return out
}

// authResource is an existing resource a call touches, with its tags as condition keys.
type authResource struct {
	arn  string
	keys keys
}

// launchResources are the existing resources launches from candidates use, each once: launch
// templates, images and the snapshots behind them, subnets and security groups.
func (e *Emulator) launchResources(cands ...*candidate) []authResource {
	seen := map[string]bool{}
	var out []authResource
	add := func(arn string, tags map[string]string) {
		if !seen[arn] {
			seen[arn] = true
			out = append(out, authResource{arn: arn, keys: keys{}.resourceTags(tags, true)})
		}
	}
	for _, c := range cands {
		d := c.template.Data
		if lt := e.templates[c.template.ID]; lt != nil {
			add(e.ec2ARN("launch-template/"+lt.ID), lt.Tags)
		}
		if img := e.world.imageByID[c.imageID()]; img != nil {
			add(e.sharedEC2ARN("image/"+img.ID), img.Tags)
			add(e.sharedEC2ARN("snapshot/"+hashID("snap", img.ID)), nil)
		}
		for _, b := range d.BlockDevices {
			if b.SnapshotID != "" {
				add(e.sharedEC2ARN("snapshot/"+b.SnapshotID), nil)
			}
		}
		if s := e.candidateSubnet(c); s != nil {
			add(e.ec2ARN("subnet/"+s.ID), s.Tags)
		}
		groups := 0
		for _, id := range d.SecurityGroupIDs {
			if g := e.world.groupByID(id); g != nil {
				add(e.ec2ARN("security-group/"+g.ID), g.Tags)
				groups++
			}
		}
		for _, g := range e.world.groups {
			if slices.Contains(d.SecurityGroupNames, g.Name) {
				add(e.ec2ARN("security-group/"+g.ID), g.Tags)
				groups++
			}
		}
		if groups == 0 && len(e.world.groups) > 0 { // the instance gets the VPC's default group
			add(e.ec2ARN("security-group/"+e.world.groups[0].ID), e.world.groups[0].Tags)
		}
	}
	return out
}

// launchAuthorizations are what launching from one pool needs: ec2:RunInstances on what it
// launches from and on what it creates (with the tags each created type gets as request tags),
// ec2:CreateTags with ec2:CreateAction for those tags when createAction is set, and
// iam:PassRole of the instance profile's role to EC2.
func (e *Emulator) launchAuthorizations(c *authCall, cand *candidate, capacityType string, tags map[string]map[string]string, createAction string) []policy.Request {
	var reqs []policy.Request
	for _, res := range e.launchResources(cand) {
		reqs = append(reqs, c.req("ec2:RunInstances", res.keys, res.arn))
	}
	for _, rt := range createdTypes(capacityType) {
		reqs = append(reqs, c.req("ec2:RunInstances", keys{}.requestTags(tags[rt]), e.ec2ARN(rt+"/*")))
	}
	if createAction != "" {
		for _, rt := range createdTypes(capacityType) {
			if len(tags[rt]) > 0 {
				reqs = append(reqs, c.req("ec2:CreateTags", keys{}.requestTags(tags[rt]).with("ec2:CreateAction", createAction), e.ec2ARN(rt+"/*")))
			}
		}
	}
	d := cand.template.Data
	if p := e.profileFor(d.ProfileName, d.ProfileArn); p != nil && len(p.Roles) > 0 {
		reqs = append(reqs, c.req("iam:PassRole", keys{"iam:PassedToService": {"ec2.amazonaws.com"},
			"iam:AssociatedResourceARN": {e.ec2ARN("instance/*")}}, p.Roles[0].Arn))
	}
	return reqs
}

// authCreateLaunchTemplate: ec2:CreateLaunchTemplate on the template it creates, with its tags
// as request tags, and ec2:CreateTags for them. (AWS checks iam:PassRole when an instance
// launches from the template, not when the template is made.)
func (e *Emulator) authCreateLaunchTemplate(c *authCall) []policy.Request {
	tags := tagSpecifications(c.q)["launch-template"]
	arn := e.ec2ARN("launch-template/*")
	reqs := []policy.Request{c.req("ec2:CreateLaunchTemplate", keys{}.requestTags(tags), arn)}
	if len(tags) > 0 {
		reqs = append(reqs, c.req("ec2:CreateTags", keys{}.requestTags(tags).with("ec2:CreateAction", "CreateLaunchTemplate"), arn))
	}
	return reqs
}

func (e *Emulator) authDeleteLaunchTemplate(c *authCall) []policy.Request {
	id, tags := c.q.str("LaunchTemplateId"), map[string]string(nil)
	if lt, err := e.findTemplate(id, c.q.str("LaunchTemplateName")); err == nil {
		id, tags = lt.ID, lt.Tags
	}
	return []policy.Request{c.req("ec2:DeleteLaunchTemplate", keys{}.resourceTags(tags, true), e.ec2ARN("launch-template/"+cmp.Or(id, "*")))}
}

// authCreateFleet is what the call itself needs: ec2:CreateFleet on the fleet, on every
// template, image, snapshot, subnet and security group its pools use, and on what it creates,
// with the request's tags; and ec2:CreateTags for those tags. The launches the fleet then
// makes (ec2:RunInstances, iam:PassRole) are authorized pool by pool: see refuseFleetLaunches.
//
// A created resource's request tags are those of the request's TagSpecification for its type;
// an existing resource's condition keys are its own tags.
func (e *Emulator) authCreateFleet(c *authCall) []policy.Request {
	r, err := e.parseFleet(c.q)
	if err != nil {
		return nil
	}
	specs := tagSpecifications(c.q)
	reqs := []policy.Request{c.req("ec2:CreateFleet", keys{}.requestTags(specs["fleet"]), e.ec2ARN("fleet/*"))}
	for _, res := range e.launchResources(r.candidates...) {
		reqs = append(reqs, c.req("ec2:CreateFleet", res.keys, res.arn))
	}
	capacityType := capacityOnDemand
	if r.spotCount > 0 {
		capacityType = capacitySpot
	}
	for _, rt := range createdTypes(capacityType) {
		reqs = append(reqs, c.req("ec2:CreateFleet", keys{}.requestTags(specs[rt]), e.ec2ARN(rt+"/*")))
	}
	for _, rt := range slices.Sorted(maps.Keys(specs)) {
		if len(specs[rt]) > 0 {
			reqs = append(reqs, c.req("ec2:CreateTags", keys{}.requestTags(specs[rt]).with("ec2:CreateAction", "CreateFleet"), e.ec2ARN(rt+"/*")))
		}
	}
	return reqs
}

// authRunInstances: a launch's authorizations (see launchAuthorizations), all of them the
// call's own.
func (e *Emulator) authRunInstances(c *authCall) []policy.Request {
	lt, err := e.runTemplate(c.q)
	if err != nil {
		return nil
	}
	cand := &candidate{template: lt, override: xmlOverrides{SubnetID: c.q.str("SubnetId"), AvailabilityZone: c.q.str("Placement.AvailabilityZone")}}
	capacityType := capacityOnDemand
	if c.q.str("InstanceMarketOptions.MarketType") == capacitySpot {
		capacityType = capacitySpot
	}
	return e.launchAuthorizations(c, cand, capacityType, lt.Data.Tags, "RunInstances")
}

// authTerminateInstances: ec2:TerminateInstances on each instance, with its tags. An instance
// that does not exist has none.
func (e *Emulator) authTerminateInstances(c *authCall) []policy.Request {
	var reqs []policy.Request
	for _, id := range c.q.list("InstanceId") {
		var tags map[string]string
		if inst := e.instances[id]; inst != nil {
			tags = inst.Tags
		}
		reqs = append(reqs, c.req("ec2:TerminateInstances", keys{}.resourceTags(tags, true), e.ec2ARN("instance/"+id)))
	}
	return reqs
}

// authCreateTags: ec2:CreateTags on each resource, with the tags set and the resource's own.
// Called on its own, it has no ec2:CreateAction: that key is set only for the tags a create
// call sets.
func (e *Emulator) authCreateTags(c *authCall) []policy.Request {
	tags := c.q.tags("Tag")
	var reqs []policy.Request
	for _, id := range c.q.list("ResourceId") {
		arn, existing := e.ec2Resource(id)
		reqs = append(reqs, c.req("ec2:CreateTags", keys{}.requestTags(tags).resourceTags(existing, true), arn))
	}
	return reqs
}

// ec2Resource returns the ARN of an EC2 resource by its id, and its tags when the emulator
// holds it.
func (e *Emulator) ec2Resource(id string) (string, map[string]string) {
	prefix, _, _ := strings.Cut(id, "-")
	switch prefix {
	case "i":
		if inst := e.instances[id]; inst != nil {
			return e.ec2ARN("instance/" + id), inst.Tags
		}
		return e.ec2ARN("instance/" + id), nil
	case "lt":
		if lt := e.templates[id]; lt != nil {
			return e.ec2ARN("launch-template/" + id), lt.Tags
		}
		return e.ec2ARN("launch-template/" + id), nil
	case "subnet":
		if s := e.world.subnetByID(id); s != nil {
			return e.ec2ARN("subnet/" + id), s.Tags
		}
		return e.ec2ARN("subnet/" + id), nil
	case "sg":
		if g := e.world.groupByID(id); g != nil {
			return e.ec2ARN("security-group/" + id), g.Tags
		}
		return e.ec2ARN("security-group/" + id), nil
	case "ami":
		if img := e.world.imageByID[id]; img != nil {
			return e.sharedEC2ARN("image/" + id), img.Tags
		}
		return e.sharedEC2ARN("image/" + id), nil
	case "snap":
		return e.sharedEC2ARN("snapshot/" + id), nil
	}
	types := map[string]string{"vol": "volume", "eni": "network-interface", "fleet": "fleet", "sir": "spot-instances-request"}
	if rt, ok := types[prefix]; ok {
		return e.ec2ARN(rt + "/" + id), nil
	}
	return e.ec2ARN(id), nil
}

// profileResource is an instance profile's ARN (under its path) and tags; one that does not
// exist is named without a path and has none.
func (e *Emulator) profileResource(name string) (string, map[string]string) {
	if p := e.profiles[name]; p != nil {
		return p.Arn, p.Tags
	}
	return e.iamARN("instance-profile/" + name), nil
}

// authInstanceProfile: the action on the instance profile, with its tags.
func (e *Emulator) authInstanceProfile(c *authCall) []policy.Request {
	arn, tags := e.profileResource(c.q.str("InstanceProfileName"))
	return []policy.Request{c.req("iam:"+c.op, keys{}.resourceTags(tags, false), arn)}
}

// authCreateInstanceProfile: iam:CreateInstanceProfile on the profile it creates, under its
// path, with its tags as request tags; and iam:TagInstanceProfile for those tags, which IAM
// requires to create a tagged profile.
func (e *Emulator) authCreateInstanceProfile(c *authCall) []policy.Request {
	path := c.q.str("Path")
	if path == "" {
		path = "/"
	}
	arn := e.iamARN("instance-profile" + path + c.q.str("InstanceProfileName"))
	tags := c.q.tags("Tags.member")
	reqs := []policy.Request{c.req("iam:CreateInstanceProfile", keys{}.requestTags(tags), arn)}
	if len(tags) > 0 {
		reqs = append(reqs, c.req("iam:TagInstanceProfile", keys{}.requestTags(tags), arn))
	}
	return reqs
}

// authAddRoleToInstanceProfile: the action on the profile, with its tags, and iam:PassRole of
// the role, which IAM requires of this call. The role goes to EC2 through the profile: IAM
// sets iam:PassedToService to ec2.amazonaws.com and iam:AssociatedResourceARN to any instance
// of the account.
func (e *Emulator) authAddRoleToInstanceProfile(c *authCall) []policy.Request {
	arn, tags := e.profileResource(c.q.str("InstanceProfileName"))
	roleName := c.q.str("RoleName")
	roleARN := e.iamARN("role/" + roleName)
	if r := e.world.roles[roleName]; r != nil {
		roleARN = r.Arn
	}
	return []policy.Request{
		c.req("iam:AddRoleToInstanceProfile", keys{}.resourceTags(tags, false), arn),
		c.req("iam:PassRole", keys{"iam:PassedToService": {"ec2.amazonaws.com"},
			"iam:AssociatedResourceARN": {"arn:aws:ec2:*:" + e.cfg.AccountID + ":instance/*"}}, roleARN),
	}
}

func (e *Emulator) authTagInstanceProfile(c *authCall) []policy.Request {
	arn, tags := e.profileResource(c.q.str("InstanceProfileName"))
	return []policy.Request{c.req("iam:TagInstanceProfile", keys{}.requestTags(c.q.tags("Tags.member")).resourceTags(tags, false), arn)}
}

// authListInstanceProfiles: the action on the path listed. IAM names a listing's resource by
// the path prefix (arn:aws:iam::ACCOUNT:instance-profile/PATH).
func (e *Emulator) authListInstanceProfiles(c *authCall) []policy.Request {
	prefix := c.q.str("PathPrefix")
	if prefix == "" {
		prefix = "/"
	}
	return []policy.Request{c.req("iam:ListInstanceProfiles", nil, e.iamARN("instance-profile"+prefix))}
}

func (e *Emulator) authGetRole(c *authCall) []policy.Request {
	name := c.q.str("RoleName")
	if r := e.world.roles[name]; r != nil {
		return []policy.Request{c.req("iam:GetRole", keys{}.resourceTags(r.Tags, false), r.Arn)}
	}
	return []policy.Request{c.req("iam:GetRole", nil, e.iamARN("role/"+name))}
}

// authQueueByName: GetQueueUrl and CreateQueue name the queue (and its owner); CreateQueue's
// tags are request tags, and tagging at creation needs sqs:TagQueue too.
func (e *Emulator) authQueueByName(c *authCall) []policy.Request {
	var in struct {
		QueueName              string
		QueueOwnerAWSAccountID string            `json:"QueueOwnerAWSAccountId"`
		Tags                   map[string]string `json:"tags"`
	}
	if json.Unmarshal(c.body, &in) != nil || in.QueueName == "" {
		return nil
	}
	arn := e.sqsARN(in.QueueOwnerAWSAccountID, in.QueueName)
	k := keys{}.requestTags(in.Tags)
	if q := e.queues[in.QueueName]; q != nil {
		k.resourceTags(q.tags, false)
	}
	reqs := []policy.Request{c.req("sqs:"+c.op, k, arn)}
	if c.op == "CreateQueue" && len(in.Tags) > 0 {
		reqs = append(reqs, c.req("sqs:TagQueue", keys{}.requestTags(in.Tags), arn))
	}
	return reqs
}

// authQueueByURL: the action on the queue its URL names (/ACCOUNT/NAME), with its tags.
func (e *Emulator) authQueueByURL(c *authCall) []policy.Request {
	var in struct {
		QueueURL string `json:"QueueUrl"`
	}
	if json.Unmarshal(c.body, &in) != nil {
		return nil
	}
	u, err := url.Parse(in.QueueURL)
	if err != nil {
		return nil
	}
	account, name, ok := strings.Cut(strings.Trim(u.Path, "/"), "/")
	if !ok {
		return nil
	}
	k := keys{}
	if q := e.queues[name]; q != nil && account == e.cfg.AccountID {
		k.resourceTags(q.tags, false)
	}
	return []policy.Request{c.req("sqs:"+c.op, k, e.sqsARN(account, name))}
}

// authGetParameter: ssm:GetParameter on the parameter. AWS's public parameters (/aws/service/)
// have no account in their ARN.
func (e *Emulator) authGetParameter(c *authCall) []policy.Request {
	var in struct{ Name string }
	if json.Unmarshal(c.body, &in) != nil || in.Name == "" {
		return nil
	}
	name, _, _ := strings.Cut(in.Name, ":")
	if !strings.HasPrefix(name, "/") {
		name = "/" + name
	}
	account := e.cfg.AccountID
	if strings.HasPrefix(name, "/aws/service/") {
		account = ""
	}
	return []policy.Request{c.req("ssm:GetParameter", nil, "arn:aws:ssm:"+e.cfg.Region+":"+account+":parameter"+name)}
}

func (e *Emulator) authDescribeCluster(c *authCall) []policy.Request {
	return []policy.Request{c.req("eks:DescribeCluster", nil, "arn:aws:eks:"+e.cfg.Region+":"+e.cfg.AccountID+":cluster/"+c.cluster)}
}
