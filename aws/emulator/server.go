package emulator

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// maxRequestBody bounds what the emulator reads from one request.
const maxRequestBody = 2 << 20

// service names one emulated AWS service; it decides the protocol and the throttling code.
type service int

const (
	serviceEC2 service = iota
	serviceIAM
	serviceSQS
	serviceSSM
	servicePricing
	serviceEKS
)

func (s service) String() string {
	return [...]string{"ec2", "iam", "sqs", "ssm", "pricing", "eks"}[s]
}

// apiError is an error the emulator returns to a client in the service's error shape.
type apiError struct {
	status  int
	code    string
	message string
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

// newError builds an apiError; status 0 means 400.
func newError(status int, code, message string) *apiError {
	if status == 0 {
		status = http.StatusBadRequest
	}
	return &apiError{status: status, code: code, message: message}
}

// asAPIError turns any handler error into an apiError (an unexpected one is an InternalError).
func asAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	return newError(http.StatusInternalServerError, "InternalError", err.Error())
}

// ServeHTTP routes a request: the admin API by path, JSON protocols by X-Amz-Target, and
// the query protocols (EC2, IAM) by the Version parameter.
func (e *Emulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, adminPrefix) {
		e.admin.ServeHTTP(w, r)
		return
	}
	if strings.HasPrefix(r.URL.Path, eksPrefix) {
		e.serveEKS(w, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
	if err != nil {
		http.Error(w, "request body: "+err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	if target := r.Header.Get("X-Amz-Target"); target != "" {
		e.serveJSON(w, r, target, body)
		return
	}
	e.serveQuery(w, r, body)
}

// serveQuery serves the EC2 and IAM query protocols.
func (e *Emulator) serveQuery(w http.ResponseWriter, r *http.Request, body []byte) {
	values, err := url.ParseQuery(string(body))
	if err != nil {
		values = url.Values{}
	}
	for k, v := range r.URL.Query() {
		values[k] = append(values[k], v...)
	}
	q := query{v: values}
	action, version := q.str("Action"), q.str("Version")
	switch version {
	case iamVersion:
		requestID := e.requestID()
		h := iamHandler(action)
		if h == nil {
			writeIAMError(w, requestID, newError(0, "InvalidAction", "Could not find operation "+action+" for version "+version))
			return
		}
		if err := e.begin(r.Context(), serviceIAM, action); err != nil {
			writeIAMError(w, requestID, asAPIError(err))
			return
		}
		e.mu.Lock()
		_, err := e.authorizeQuery(r, serviceIAM, action, q)
		var out any
		if err == nil {
			out, err = h(e, q)
		}
		e.mu.Unlock()
		if err != nil {
			writeIAMError(w, requestID, asAPIError(err))
			return
		}
		e.holdAnswer(r.Context(), action)
		writeIAM(w, action, requestID, out)
	default:
		requestID := e.requestID()
		h := ec2Handler(action)
		if version != ec2Version || h == nil {
			writeEC2Error(w, requestID, newError(0, "InvalidAction", "The action "+action+" is not valid for this web service."))
			return
		}
		if err := e.begin(r.Context(), serviceEC2, action); err != nil {
			writeEC2Error(w, requestID, asAPIError(err))
			return
		}
		e.mu.Lock()
		e.advance()
		// out is the answer of an instant fleet whose launches the policy refused.
		out, err := e.authorizeQuery(r, serviceEC2, action, q)
		switch {
		case err == nil && out == nil && q.boolParam("DryRun"):
			// The permissions are checked (and, without a policy, every dry run would succeed).
			err = newError(http.StatusPreconditionFailed, "DryRunOperation", "Request would have succeeded, but DryRun flag is set.")
		case err == nil && out == nil:
			out, err = h(e, q)
		}
		e.mu.Unlock()
		if err != nil {
			writeEC2Error(w, requestID, asAPIError(err))
			return
		}
		e.holdAnswer(r.Context(), action)
		writeEC2(w, action, requestID, out)
	}
}

// serveJSON serves SQS (JSON 1.0), SSM and Pricing (JSON 1.1).
func (e *Emulator) serveJSON(w http.ResponseWriter, r *http.Request, target string, body []byte) {
	prefix, op, _ := strings.Cut(target, ".")
	requestID := e.requestID()
	var svc service
	switch prefix {
	case "AmazonSQS":
		svc = serviceSQS
	case "AmazonSSM":
		svc = serviceSSM
	case "AWSPriceListService":
		svc = servicePricing
	default:
		writeJSONError(w, serviceSSM, requestID, newError(0, "UnknownOperationException", "unknown target "+target))
		return
	}
	h := jsonHandlerFor(svc, op)
	if h == nil {
		writeJSONError(w, svc, requestID, newError(0, "UnknownOperationException", "unknown operation "+target))
		return
	}
	if err := e.begin(r.Context(), svc, op); err != nil {
		writeJSONError(w, svc, requestID, asAPIError(err))
		return
	}
	if len(body) == 0 {
		body = []byte("{}")
	}
	if err := e.authorizeJSON(r, svc, op, body); err != nil {
		writeJSONError(w, svc, requestID, asAPIError(err))
		return
	}
	out, err := h(e, r.Context(), body)
	if err != nil {
		writeJSONError(w, svc, requestID, asAPIError(err))
		return
	}
	e.holdAnswer(r.Context(), op)
	writeJSON(w, svc, requestID, out)
}

// operationService returns the service that serves op.
func operationService(op string) (service, bool) {
	switch {
	case ec2Handler(op) != nil:
		return serviceEC2, true
	case iamHandler(op) != nil:
		return serviceIAM, true
	case op == "DescribeCluster":
		return serviceEKS, true
	}
	for _, svc := range []service{serviceSQS, serviceSSM, servicePricing} {
		if jsonHandlerFor(svc, op) != nil {
			return svc, true
		}
	}
	return 0, false
}

// operationNames lists every operation the emulator serves.
func operationNames() []string {
	return []string{
		"DescribeInstanceTypes", "DescribeInstanceTypeOfferings", "DescribeSpotPriceHistory", "DescribeAvailabilityZones",
		"DescribeSubnets", "DescribeSecurityGroups", "DescribeImages", "CreateLaunchTemplate", "DescribeLaunchTemplates",
		"DeleteLaunchTemplate", "CreateFleet", "DescribeInstances", "TerminateInstances", "CreateTags",
		"GetInstanceProfile", "CreateInstanceProfile", "AddRoleToInstanceProfile", "RemoveRoleFromInstanceProfile",
		"GetRole", "TagInstanceProfile", "DeleteInstanceProfile",
		"GetQueueUrl", "CreateQueue", "SendMessage", "ReceiveMessage", "DeleteMessage",
		"GetParameter", "GetProducts",
		"RunInstances", "DescribeInstanceStatus", "DescribeCapacityReservations", "DescribePlacementGroups", "ListInstanceProfiles",
		"DescribeCluster",
	}
}

// begin counts the call, waits the configured and injected latency, and returns the injected
// fault for this call, if any.
func (e *Emulator) begin(ctx context.Context, svc service, op string) error {
	e.mu.Lock()
	e.calls[op]++
	latency := e.cfg.CallLatency + e.faults.latency[op] + e.faults.latency[""]
	fault := e.faults.take(svc, op, e.rng)
	e.mu.Unlock()
	if !e.waitClock(ctx, latency) {
		return newError(http.StatusServiceUnavailable, "ServiceUnavailable", "the call ended before its latency passed")
	}
	if fault != nil {
		return fault
	}
	return nil
}

func (e *Emulator) requestID() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.newUUID()
}

// now is the emulator's time. Handlers call it with e.mu held or not: the clock has its own lock.
func (e *Emulator) now() time.Time { return e.clock.Now() }
