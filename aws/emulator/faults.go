package emulator

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// CapacityFault makes CreateFleet report Code for every pool it matches, instead of
// launching there. Empty fields match anything.
type CapacityFault struct {
	// InstanceType is a type name or a pattern with * and ? ("p4d.*").
	InstanceType string `json:"instanceType,omitempty"`
	Zone         string `json:"zone,omitempty"`
	// CapacityType is spot or on-demand.
	CapacityType string `json:"capacityType,omitempty"`
	// Code is the fleet error code (default InsufficientInstanceCapacity); also
	// MaxSpotInstanceCountExceeded, VcpuLimitExceeded, UnfulfillableCapacity,
	// InsufficientFreeAddressesInSubnet, Unsupported, or any other code.
	Code string `json:"code,omitempty"`
	// Count is how many launch attempts fail before the fault disappears (0: until cleared).
	Count int `json:"count,omitempty"`
}

// Throttle makes calls fail with the service's throttling error: RequestLimitExceeded (EC2,
// HTTP 503), Throttling (IAM), RequestThrottled (SQS), ThrottlingException (SSM, Pricing).
type Throttle struct {
	// Operation is the operation name (CreateFleet, ReceiveMessage, ...), or "" for every call.
	Operation string `json:"operation,omitempty"`
	// Share is the fraction of calls throttled, drawn from the seeded generator.
	Share float64 `json:"share,omitempty"`
	// Next throttles the next Next calls (before Share applies).
	Next int `json:"next,omitempty"`
}

// Failure makes the next Count calls of Operation fail with Code (HTTP 400, or 500/503 for
// InternalError, InternalFailure, ServiceUnavailable and RequestLimitExceeded).
type Failure struct {
	Operation string `json:"operation"`
	Count     int    `json:"count"`
	Code      string `json:"code"`
	Message   string `json:"message,omitempty"`
}

// Faults is the set of faults in force.
type Faults struct {
	Capacity []CapacityFault `json:"capacity"`
	Throttle []Throttle      `json:"throttle"`
	Fail     []Failure       `json:"fail"`
	// Latency is the added latency by operation ("" for every call).
	Latency map[string]time.Duration `json:"latency"`
	// AnswerDelay holds the answers of an operation after it was served ("" for every call).
	AnswerDelay map[string]time.Duration `json:"answerDelay"`
}

// faults is the mutable fault state; the emulator's lock guards it.
type faults struct {
	capacityFaults []CapacityFault
	throttles      []Throttle
	failures       []Failure
	latency        map[string]time.Duration
	answerDelay    map[string]time.Duration
}

var codePattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9.]{0,99}$`)

// InjectCapacityError adds a capacity fault.
func (e *Emulator) InjectCapacityError(f CapacityFault) error {
	if f.Code == "" {
		f.Code = "InsufficientInstanceCapacity"
	}
	if !codePattern.MatchString(f.Code) {
		return fmt.Errorf("capacity fault: code %q: want letters, digits and dots", f.Code)
	}
	if f.CapacityType != "" && f.CapacityType != capacitySpot && f.CapacityType != capacityOnDemand {
		return fmt.Errorf("capacity fault: capacity type %q: want spot or on-demand", f.CapacityType)
	}
	if f.Count < 0 {
		return fmt.Errorf("capacity fault: count %d: must not be negative", f.Count)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if f.Zone != "" {
		if _, ok := e.world.zoneByName(f.Zone); !ok {
			return fmt.Errorf("capacity fault: zone %q is not one of the emulator's zones", f.Zone)
		}
	}
	if f.InstanceType != "" && !strings.ContainsAny(f.InstanceType, "*?") && e.world.typeByName[f.InstanceType] == nil {
		return fmt.Errorf("capacity fault: instance type %q is not in the catalog", f.InstanceType)
	}
	e.faults.capacityFaults = append(e.faults.capacityFaults, f)
	return nil
}

// InjectThrottle adds a throttling rule.
func (e *Emulator) InjectThrottle(t Throttle) error {
	if t.Operation != "" {
		if _, ok := operationService(t.Operation); !ok {
			return fmt.Errorf("throttle: unknown operation %q", t.Operation)
		}
	}
	if t.Share < 0 || t.Share > 1 || t.Next < 0 || t.Share == 0 && t.Next == 0 {
		return fmt.Errorf("throttle %q: want a share in (0, 1] or a positive next count, got share %v next %d", t.Operation, t.Share, t.Next)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.faults.throttles = append(e.faults.throttles, t)
	return nil
}

// FailNext makes the next n calls of op fail with the error code.
func (e *Emulator) FailNext(op string, n int, code string) error {
	return e.InjectFailure(Failure{Operation: op, Count: n, Code: code})
}

// InjectFailure makes the next f.Count calls of f.Operation fail with f.Code.
func (e *Emulator) InjectFailure(f Failure) error {
	if _, ok := operationService(f.Operation); !ok {
		return fmt.Errorf("failure: unknown operation %q", f.Operation)
	}
	if f.Count <= 0 {
		return fmt.Errorf("failure %q: count %d: must be positive", f.Operation, f.Count)
	}
	if !codePattern.MatchString(f.Code) {
		return fmt.Errorf("failure %q: code %q: want letters, digits and dots", f.Operation, f.Code)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.faults.failures = append(e.faults.failures, f)
	return nil
}

// SetLatency adds d to every call of op ("" for every call) before it is served; zero removes
// it. A caller that gives up meanwhile gets nothing done.
func (e *Emulator) SetLatency(op string, d time.Duration) error {
	return e.setDelay(func(f *faults) map[string]time.Duration { return f.latency }, "latency", op, d)
}

// SetAnswerDelay holds the answer of every call of op ("" for every call) for d after it was
// served; zero removes it. A caller that gives up meanwhile never hears what was done, as when
// a process dies while EC2 launches its instance.
func (e *Emulator) SetAnswerDelay(op string, d time.Duration) error {
	return e.setDelay(func(f *faults) map[string]time.Duration { return f.answerDelay }, "answer delay", op, d)
}

// setDelay sets op's delay in the map of the faults delays picks.
func (e *Emulator) setDelay(delays func(*faults) map[string]time.Duration, what, op string, d time.Duration) error {
	if op != "" {
		if _, ok := operationService(op); !ok {
			return fmt.Errorf("%s: unknown operation %q", what, op)
		}
	}
	if d < 0 {
		return fmt.Errorf("%s %q: %v must not be negative", what, op, d)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if d == 0 {
		delete(delays(&e.faults), op)
	} else {
		delays(&e.faults)[op] = d
	}
	return nil
}

// holdAnswer waits the answer delay of op, or until ctx ends.
func (e *Emulator) holdAnswer(ctx context.Context, op string) {
	e.mu.Lock()
	d := e.faults.answerDelay[op] + e.faults.answerDelay[""]
	e.mu.Unlock()
	e.waitClock(ctx, d)
}

func newFaults() faults {
	return faults{latency: map[string]time.Duration{}, answerDelay: map[string]time.Duration{}}
}

// ClearFaults removes every injected fault and added latency.
func (e *Emulator) ClearFaults() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.faults = newFaults()
}

// Faults returns the faults in force.
func (e *Emulator) Faults() Faults {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := Faults{
		Capacity:    append([]CapacityFault{}, e.faults.capacityFaults...),
		Throttle:    append([]Throttle{}, e.faults.throttles...),
		Fail:        append([]Failure{}, e.faults.failures...),
		Latency:     maps.Clone(e.faults.latency),
		AnswerDelay: maps.Clone(e.faults.answerDelay),
	}
	return out
}

// take returns the error an injected failure or throttle gives this call, consuming counts.
func (f *faults) take(svc service, op string, rng *rand.Rand) *apiError {
	for i := range f.failures {
		r := &f.failures[i]
		if r.Operation != op {
			continue
		}
		r.Count--
		code, msg := r.Code, r.Message
		if r.Count <= 0 {
			f.failures = append(f.failures[:i], f.failures[i+1:]...)
		}
		if msg == "" {
			msg = "injected fault: " + code
		}
		return newError(statusForCode(code), code, msg)
	}
	for i := range f.throttles {
		t := &f.throttles[i]
		if t.Operation != "" && t.Operation != op {
			continue
		}
		if t.Next > 0 {
			t.Next--
			if t.Next == 0 && t.Share == 0 {
				f.throttles = append(f.throttles[:i], f.throttles[i+1:]...)
			}
			return throttleError(svc)
		}
		if t.Share > 0 && rng.Float64() < t.Share {
			return throttleError(svc)
		}
	}
	return nil
}

func throttleError(svc service) *apiError {
	switch svc {
	case serviceEC2:
		return newError(http.StatusServiceUnavailable, "RequestLimitExceeded", "Request limit exceeded.")
	case serviceIAM:
		return newError(0, "Throttling", "Rate exceeded")
	case serviceSQS:
		return newError(0, "RequestThrottled", "Request is throttled.")
	}
	return newError(0, "ThrottlingException", "Rate exceeded")
}

func statusForCode(code string) int {
	switch code {
	case "InternalError", "InternalFailure", "InternalErrorException", "InternalServerError":
		return http.StatusInternalServerError
	case "ServiceUnavailable", "Unavailable", "RequestLimitExceeded":
		return http.StatusServiceUnavailable
	case "NoSuchEntity":
		return http.StatusNotFound
	case "EntityAlreadyExists", "LimitExceeded", "DeleteConflict":
		return http.StatusConflict
	}
	return http.StatusBadRequest
}

// capacity returns the code and message of the first capacity fault matching a launch
// attempt, consuming its count. The caller holds the emulator's lock.
func (f *faults) capacity(instanceType, zone, capacityType string) (code, message string) {
	for i := range f.capacityFaults {
		c := &f.capacityFaults[i]
		if c.InstanceType != "" && !globMatch(c.InstanceType, instanceType) ||
			c.Zone != "" && c.Zone != zone || c.CapacityType != "" && c.CapacityType != capacityType {
			continue
		}
		code = c.Code
		if c.Count > 0 {
			c.Count--
			if c.Count == 0 {
				f.capacityFaults = append(f.capacityFaults[:i], f.capacityFaults[i+1:]...)
			}
		}
		return code, capacityMessage(code, instanceType, zone, capacityType)
	}
	return "", ""
}

func capacityMessage(code, instanceType, zone, capacityType string) string {
	switch code {
	case "InsufficientInstanceCapacity":
		if capacityType == capacitySpot {
			return "There is no Spot capacity available that matches your request."
		}
		return fmt.Sprintf("We currently do not have sufficient %s capacity in the Availability Zone you requested (%s). Our system will be working on provisioning additional capacity. You can currently get %s capacity by not specifying an Availability Zone in your request or choosing other Availability Zones.",
			instanceType, zone, instanceType)
	case "MaxSpotInstanceCountExceeded":
		return "Max spot instance count exceeded"
	case "VcpuLimitExceeded":
		return "You have requested more vCPU capacity than your current vCPU limit of 32 allows for the instance bucket that the specified instance type belongs to. Please visit http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit."
	case "UnfulfillableCapacity":
		return "Unable to fulfill capacity due to your request configuration. Please adjust your request and try again."
	case "InsufficientFreeAddressesInSubnet":
		return "There are not enough free addresses in subnet to satisfy the requested number of instances."
	case "Unsupported":
		return fmt.Sprintf("Your requested instance type (%s) is not supported in your requested Availability Zone (%s).", instanceType, zone)
	}
	return "injected capacity fault: " + code
}
