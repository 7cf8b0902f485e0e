package emulator

import (
	"cmp"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/nodepilot/nodepilot/aws/policy"
)

// Policy enforcement. With Config.Policy set, every call is authorized before it is served, the
// way AWS authorizes it as far as an identity-based policy can tell: the IAM actions the call
// needs (its own and those AWS checks on its behalf, such as iam:PassRole for a launch with an
// instance profile), on the ARNs of the resources it touches in the emulator's account and
// region, with the condition keys AWS puts in the request context (aws:RequestedRegion from the
// request's signature, aws:RequestTag/* and aws:TagKeys from the tags it sets,
// aws:ResourceTag/* from the tags of what exists, iam:PassedToService, ec2:CreateAction). What
// each operation needs is in authorize_ops.go.
//
// A refusal is answered in the service's own shape: EC2's UnauthorizedOperation, IAM's and
// SQS's AccessDenied, the AccessDeniedException of SSM, Pricing and EKS, each with AWS's
// "User: ... is not authorized to perform: ACTION on resource: ARN because no identity-based
// policy allows the ACTION action". The emulator knows no identities: the caller is named
// after the access key it signed with.

// authCall is what a call's authorizations are built from.
type authCall struct {
	svc service
	op  string
	// region is the region the request was signed for: aws:RequestedRegion.
	region string
	// principal names the caller in refusals.
	principal string
	// q holds the query protocols' parameters, body the JSON protocols' request, cluster the
	// EKS cluster named in the path.
	q       query
	body    []byte
	cluster string
}

// authorizer builds the authorizations AWS makes for one operation; each must be allowed. It
// returns none for a request too malformed to authorize, which its handler then refuses with
// the validation error. The caller holds e.mu.
type authorizer func(e *Emulator, c *authCall) []policy.Request

// Refusal is an authorization the emulator's policy refused.
type Refusal struct {
	// Operation is the call (CreateFleet); Action is the IAM action refused (iam:PassRole) and
	// Resource the ARN it was refused on.
	Operation, Action, Resource string
	// Message is what the caller was told.
	Message string
}

// Refusals returns the authorizations the policy refused, oldest first.
func (e *Emulator) Refusals() []Refusal {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.refusals)
}

// AllowedActions returns how many authorizations of each IAM action the policy allowed,
// counting the actions AWS checks on a call's behalf (ec2:RunInstances and iam:PassRole for an
// instant fleet, iam:TagInstanceProfile for a tagged CreateInstanceProfile...).
func (e *Emulator) AllowedActions() map[string]int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return maps.Clone(e.allowed)
}

// newAuthCall reads who signed a request, and for which region. The SigV4 credential scope
// (Credential=KEY/DATE/REGION/SERVICE/aws4_request) gives both; an unsigned request is taken
// as one to the emulator's region from an anonymous caller.
func (e *Emulator) newAuthCall(r *http.Request, svc service, op string) *authCall {
	c := &authCall{svc: svc, op: op, region: e.cfg.Region}
	key := "anonymous"
	if _, cred, ok := strings.Cut(r.Header.Get("Authorization"), "Credential="); ok {
		cred, _, _ = strings.Cut(cred, ",")
		if parts := strings.Split(cred, "/"); len(parts) == 5 {
			key, c.region = parts[0], parts[2]
		}
	}
	c.principal = "arn:aws:iam::" + e.cfg.AccountID + ":user/" + key
	return c
}

// Enforce makes the emulator authorize every call against ev from now on, as Config.Policy
// does; nil stops it.
func (e *Emulator) Enforce(ev *policy.Evaluator) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.policy = ev
}

// authorizeQuery authorizes an EC2 or IAM call. Besides a refusal it may return the answer to
// give instead of serving the call: an instant fleet whose launches the policy refused. The
// caller holds e.mu.
func (e *Emulator) authorizeQuery(r *http.Request, svc service, op string, q query) (any, error) {
	if e.policy == nil {
		return nil, nil
	}
	c := e.newAuthCall(r, svc, op)
	c.q = q
	if err := e.authorize(c); err != nil {
		return nil, err
	}
	if svc == serviceEC2 && op == "CreateFleet" {
		if out := e.refuseFleetLaunches(c); out != nil {
			return out, nil
		}
	}
	return nil, nil
}

// authorizeJSON authorizes an SQS, SSM or Pricing call.
func (e *Emulator) authorizeJSON(r *http.Request, svc service, op string, body []byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.policy == nil {
		return nil
	}
	c := e.newAuthCall(r, svc, op)
	c.body = body
	return e.authorize(c)
}

// authorizeEKS authorizes EKS DescribeCluster of a cluster.
func (e *Emulator) authorizeEKS(r *http.Request, cluster string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.policy == nil {
		return nil
	}
	c := e.newAuthCall(r, serviceEKS, "DescribeCluster")
	c.cluster = cluster
	return e.authorize(c)
}

// authorize evaluates every authorization of a call, records the outcome, and returns the
// first refusal in the service's error shape. An operation with no authorizer is refused: the
// emulator fails closed. The caller holds e.mu.
func (e *Emulator) authorize(c *authCall) error {
	build := authorizerFor(c.svc, c.op)
	if build == nil {
		req := c.req(c.svc.String()+":"+c.op, nil)
		return e.refuse(c, req, policy.Decision{Resource: "*"})
	}
	reqs := build(e, c)
	for _, req := range reqs {
		if d := e.policy.Evaluate(req); !d.Allowed {
			return e.refuse(c, req, d)
		}
	}
	for _, req := range reqs {
		e.allowed[req.Action]++
	}
	return nil
}

// refuse records a refused authorization and returns the service's error for it.
func (e *Emulator) refuse(c *authCall, req policy.Request, d policy.Decision) *apiError {
	msg := refusalMessage(c.principal, req.Action, d)
	e.refusals = append(e.refusals, Refusal{Operation: c.op, Action: req.Action, Resource: d.Resource, Message: msg})
	switch c.svc {
	case serviceEC2:
		return newError(http.StatusForbidden, "UnauthorizedOperation", "You are not authorized to perform this operation. "+msg)
	case serviceIAM:
		return newError(http.StatusForbidden, "AccessDenied", msg)
	case serviceSQS, serviceEKS:
		return newError(http.StatusForbidden, "AccessDeniedException", msg)
	}
	return newError(http.StatusBadRequest, "AccessDeniedException", msg) // SSM and Pricing answer 400
}

// refusalMessage is AWS's explanation of a refusal; a resource of "*" is not named, as AWS
// does not name it for the actions without resource-level permissions.
func refusalMessage(principal, action string, d policy.Decision) string {
	on := ""
	if d.Resource != "" && d.Resource != "*" {
		on = " on resource: " + d.Resource
	}
	why := "because no identity-based policy allows the " + action + " action"
	if d.Denied {
		why = "with an explicit deny in an identity-based policy"
	}
	return "User: " + principal + " is not authorized to perform: " + action + on + " " + why
}

// refuseFleetLaunches authorizes the launches of an instant fleet pool by pool, as the fleet
// makes them on the caller's behalf: AWS reports a refused ec2:RunInstances or iam:PassRole as
// an UnauthorizedOperation in the fleet's errors, not as the call's error. It returns the
// fleet's answer when a pool is refused, nil when the fleet may launch. A replayed client
// token and a request the handler will refuse are left to the handler.
//
// Simplification: when any pool is refused, the fleet launches nothing and reports the refused
// pools; AWS would still launch from the pools it allows. Under a policy scoped by tag, region
// and role, every pool of a request is decided alike.
func (e *Emulator) refuseFleetLaunches(c *authCall) any {
	q := c.q
	if q.boolParam("DryRun") {
		return nil
	}
	if tok := q.str("ClientToken"); tok != "" && e.fleets[tok] != nil {
		return nil
	}
	r, err := e.parseFleet(q)
	if err != nil {
		return nil
	}
	out := createFleetResponse{}
	// Pools that differ only in instance type are authorized alike: one decision serves them.
	decided := map[string]string{}
	for _, part := range r.parts() {
		for _, cand := range r.candidates {
			key := part.capacityType + "|" + cand.template.ID + "|" + cand.imageID()
			if s := e.candidateSubnet(cand); s != nil {
				key += "|" + s.ID
			}
			msg, ok := decided[key]
			if !ok {
				msg = e.authorizeLaunch(c, cand, part.capacityType, mergeTags(cand.template.Data.Tags, r.tags))
				decided[key] = msg
			}
			if msg != "" {
				out.Errors = append(out.Errors, xmlFleetError{LaunchTemplateAndOverrides: cand.echo(), Lifecycle: part.capacityType,
					ErrorCode: "UnauthorizedOperation", ErrorMessage: msg})
			}
		}
	}
	if len(out.Errors) == 0 {
		return nil
	}
	out.FleetID = "fleet-" + e.newUUID()
	if r.token != "" {
		e.fleets[r.token] = &fleetRecord{fingerprint: fingerprint(q.v, "ClientToken"), response: out}
	}
	return &out
}

// authorizeLaunch authorizes one pool's launch and returns EC2's message for its refusal, or
// "" when it is allowed.
func (e *Emulator) authorizeLaunch(c *authCall, cand *candidate, capacityType string, tags map[string]map[string]string) string {
	reqs := e.launchAuthorizations(c, cand, capacityType, tags, "")
	for _, req := range reqs {
		if d := e.policy.Evaluate(req); !d.Allowed {
			return e.refuse(c, req, d).message
		}
	}
	for _, req := range reqs {
		e.allowed[req.Action]++
	}
	return ""
}

// mergeTags returns the tags by resource type of a launch template with the request's over
// them, as an instance gets them.
func mergeTags(layers ...map[string]map[string]string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, layer := range layers {
		for rt, tags := range layer {
			addTags(out, rt, tags)
		}
	}
	return out
}

// keys are the condition keys of one authorization.
type keys map[string][]string

// requestTags adds the tags a request sets: aws:RequestTag/KEY and aws:TagKeys.
func (k keys) requestTags(tags map[string]string) keys {
	if len(tags) == 0 {
		return k
	}
	for key, v := range tags {
		k["aws:RequestTag/"+key] = []string{v}
	}
	k["aws:TagKeys"] = slices.Sorted(maps.Keys(tags))
	return k
}

// resourceTags adds the tags of an existing resource: aws:ResourceTag/KEY, and for EC2 its own
// spelling ec2:ResourceTag/KEY too.
func (k keys) resourceTags(tags map[string]string, ec2 bool) keys {
	for key, v := range tags {
		k["aws:ResourceTag/"+key] = []string{v}
		if ec2 {
			k["ec2:ResourceTag/"+key] = []string{v}
		}
	}
	return k
}

func (k keys) with(key string, values ...string) keys {
	k[key] = values
	return k
}

// req is one authorization of the call: action on resources (none: "*"), with keys and the
// request's region.
func (c *authCall) req(action string, k keys, resources ...string) policy.Request {
	out := keys{"aws:RequestedRegion": {c.region}}
	maps.Copy(out, k)
	return policy.Request{Action: action, Resources: resources, Context: out}
}

// The ARNs of the emulated account's resources, in the partition its own ARNs use.

func (e *Emulator) ec2ARN(resource string) string {
	return "arn:aws:ec2:" + e.cfg.Region + ":" + e.cfg.AccountID + ":" + resource
}

// sharedEC2ARN is the ARN of an image or a snapshot, which has no account.
func (e *Emulator) sharedEC2ARN(resource string) string {
	return "arn:aws:ec2:" + e.cfg.Region + "::" + resource
}

func (e *Emulator) iamARN(resource string) string {
	return "arn:aws:iam::" + e.cfg.AccountID + ":" + resource
}

func (e *Emulator) sqsARN(account, queue string) string {
	return "arn:aws:sqs:" + e.cfg.Region + ":" + cmp.Or(account, e.cfg.AccountID) + ":" + queue
}
