package emulator

import (
	"fmt"
	"time"
)

// Status checks an instance reports in DescribeInstanceStatus.
const (
	CheckInstance = "instance"
	CheckSystem   = "system"
)

type describeInstanceStatusResponse struct {
	ec2Response
	Statuses  []xmlInstanceStatus `xml:"instanceStatusSet>item"`
	NextToken string              `xml:"nextToken,omitempty"`
}

type xmlInstanceStatus struct {
	InstanceID       string         `xml:"instanceId"`
	AvailabilityZone string         `xml:"availabilityZone"`
	ZoneID           string         `xml:"availabilityZoneId"`
	InstanceState    xmlState       `xml:"instanceState"`
	SystemStatus     xmlStatusCheck `xml:"systemStatus"`
	InstanceStatus   xmlStatusCheck `xml:"instanceStatus"`
}

type xmlStatusCheck struct {
	Status  string            `xml:"status"`
	Details []xmlStatusDetail `xml:"details>item"`
}

type xmlStatusDetail struct {
	Name          string `xml:"name"`
	Status        string `xml:"status"`
	ImpairedSince string `xml:"impairedSince,omitempty"`
}

// statusCheck is an instance's check as EC2 reports it: ok, or impaired with the reachability
// detail failed since when it began; not-applicable while the instance is not running.
func (inst *instance) statusCheck(check string) xmlStatusCheck {
	if inst.State != StateRunning {
		return xmlStatusCheck{Status: "not-applicable"}
	}
	if since, ok := inst.impaired[check]; ok {
		return xmlStatusCheck{Status: "impaired", Details: []xmlStatusDetail{{Name: "reachability", Status: "failed", ImpairedSince: since.UTC().Format(time.RFC3339)}}}
	}
	return xmlStatusCheck{Status: "ok", Details: []xmlStatusDetail{{Name: "reachability", Status: "passed"}}}
}

// statusField serves DescribeInstanceStatus's filters.
func (inst *instance) statusField(name string) ([]string, bool) {
	switch name {
	case "instance-status.status":
		return one(inst.statusCheck(CheckInstance).Status), true
	case "system-status.status":
		return one(inst.statusCheck(CheckSystem).Status), true
	case "instance-state-name":
		return one(inst.State), true
	case "availability-zone":
		return one(inst.Zone), true
	case "event.code":
		return nil, true // the emulator schedules no maintenance events
	}
	return nil, false
}

// describeInstanceStatus reports the status checks of running instances (of every live one
// with IncludeAllInstances), filtered as EC2 filters them.
func (e *Emulator) describeInstanceStatus(q query) (any, error) {
	all := q.boolParam("IncludeAllInstances")
	page, next, err := e.selectInstances(q, func(inst *instance) fieldFunc { return inst.statusField }, func(inst *instance) bool {
		return inst.State == StateRunning || (all && inst.State != StateTerminated)
	})
	if err != nil {
		return nil, err
	}
	out := &describeInstanceStatusResponse{NextToken: next}
	for _, inst := range page {
		out.Statuses = append(out.Statuses, xmlInstanceStatus{InstanceID: inst.ID, AvailabilityZone: inst.Zone, ZoneID: inst.ZoneID,
			InstanceState: xmlState{Code: stateCode(inst.State), Name: inst.State},
			SystemStatus:  inst.statusCheck(CheckSystem), InstanceStatus: inst.statusCheck(CheckInstance)})
	}
	return out, nil
}

// Impairment is a failing status check, as the admin API takes it.
type Impairment struct {
	InstanceID string `json:"instanceId"`
	// Check is CheckInstance or CheckSystem.
	Check string `json:"check"`
}

// Impair makes one of an instance's status checks (CheckInstance or CheckSystem) fail from now
// on, as a hardware or software fault does; Karpenter replaces such instances.
func (e *Emulator) Impair(id, check string) error {
	if check != CheckInstance && check != CheckSystem {
		return fmt.Errorf("status check %q: use %q or %q", check, CheckInstance, CheckSystem)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	inst := e.instances[id]
	if inst == nil || inst.State != StateRunning {
		return fmt.Errorf("instance %q: no running instance has this id", id)
	}
	if inst.impaired == nil {
		inst.impaired = map[string]time.Time{}
	}
	if _, ok := inst.impaired[check]; !ok {
		inst.impaired[check] = e.now()
	}
	return nil
}

type describeCapacityReservationsResponse struct {
	ec2Response
	Reservations []struct{} `xml:"capacityReservationSet>item"`
	NextToken    string     `xml:"nextToken,omitempty"`
}

// describeCapacityReservations answers that the account holds no capacity reservation: the
// emulator has none to launch into. Ids asked for do not exist.
func (e *Emulator) describeCapacityReservations(q query) (any, error) {
	if ids := q.list("CapacityReservationId"); len(ids) > 0 {
		return nil, newError(0, "InvalidCapacityReservationId.NotFound", fmt.Sprintf("The capacity reservation ID '%s' does not exist", ids[0]))
	}
	if _, err := maxResults(q, 1, 1000, 1000); err != nil {
		return nil, err
	}
	return &describeCapacityReservationsResponse{}, nil
}

type describePlacementGroupsResponse struct {
	ec2Response
	Groups []struct{} `xml:"placementGroupSet>item"`
}

// describePlacementGroups answers that the account has no placement group.
func (e *Emulator) describePlacementGroups(q query) (any, error) {
	if names := q.list("GroupName"); len(names) > 0 {
		return nil, newError(0, "InvalidPlacementGroup.Unknown", fmt.Sprintf("The Placement Group '%s' is unknown.", names[0]))
	}
	if ids := q.list("GroupId"); len(ids) > 0 {
		return nil, newError(0, "InvalidPlacementGroupId.NotFound", fmt.Sprintf("The Placement Group ID '%s' does not exist.", ids[0]))
	}
	return &describePlacementGroupsResponse{}, nil
}
