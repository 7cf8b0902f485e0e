package aws

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
)

// PolicyFile is where the IAM policy nodepilot needs lives in the repository.
const PolicyFile = "aws/policy/controller-policy.json"

// PermissionError says that AWS refused an action for lack of an IAM permission.
type PermissionError struct {
	// Action is the IAM action, such as ec2:CreateFleet.
	Action string
	Err    error
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("AWS denied %s: attach the IAM policy %s to nodepilot's role (%v)", e.Action, PolicyFile, e.Err)
}

func (e *PermissionError) Unwrap() error { return e.Err }

// CallRecorder counts the AWS calls made through a set of clients, by IAM action
// ("ec2:CreateFleet"), and turns permission denials into *PermissionError, logging each denied
// action once however often it is denied.
type CallRecorder struct {
	log    *slog.Logger
	mu     sync.Mutex
	counts map[string]int64
	denied map[string]bool
}

// NewCallRecorder returns an empty recorder that logs denials on log (slog.Default if nil).
func NewCallRecorder(log *slog.Logger) *CallRecorder {
	if log == nil {
		log = slog.Default()
	}
	return &CallRecorder{log: log, counts: map[string]int64{}, denied: map[string]bool{}}
}

// Counts returns the number of calls per IAM action so far.
func (r *CallRecorder) Counts() map[string]int64 {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.counts)
}

// Denied lists the actions AWS has denied, sorted.
func (r *CallRecorder) Denied() []string {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(maps.Keys(r.denied))
}

// addMiddleware installs the recorder in an SDK client's middleware stack.
func (r *CallRecorder) addMiddleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("nodepilotCallRecorder",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			action := iamAction(awsmiddleware.GetServiceID(ctx), awsmiddleware.GetOperationName(ctx))
			r.count(action)
			out, md, err := next.HandleInitialize(ctx, in)
			if err != nil && isPermissionDenied(err) {
				// AWS may deny another action than the call's (AddRoleToInstanceProfile
				// needs iam:PassRole too): the one it names is the one to grant.
				denied := deniedAction(err.Error(), action)
				r.deny(denied, err)
				err = &PermissionError{Action: denied, Err: err}
			}
			return out, md, err
		}), middleware.Before)
}

func (r *CallRecorder) count(action string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counts[action]++
}

func (r *CallRecorder) deny(action string, err error) {
	if r == nil {
		return
	}
	r.mu.Lock()
	first := !r.denied[action]
	r.denied[action] = true
	r.mu.Unlock()
	if first {
		r.log.Error("AWS denied an action nodepilot needs; further denials of it are not logged",
			"action", action, "policy", PolicyFile, "error", err)
	}
}

// iamAction names an SDK operation as IAM does: the service prefix and the operation name.
func iamAction(serviceID, operation string) string {
	return strings.ToLower(strings.ReplaceAll(serviceID, " ", "")) + ":" + operation
}

// isPermissionDenied reports whether AWS refused the call for lack of permission.
func isPermissionDenied(err error) bool {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return false
	}
	return deniedCodes[ae.ErrorCode()]
}

// deniedCodes are the error codes with which AWS services refuse a call for lack of permission.
var deniedCodes = map[string]bool{"AccessDenied": true, "AccessDeniedException": true, "UnauthorizedOperation": true, "UnauthorizedAccess": true}

// deniedActionPattern finds the action in AWS's "... is not authorized to perform: ACTION on
// resource: ..." message.
var deniedActionPattern = regexp.MustCompile(`not authorized to perform: ([a-z0-9-]+:[A-Za-z0-9]+)`)

// deniedAction is the action AWS's message says was denied, else fallback.
func deniedAction(msg, fallback string) string {
	if m := deniedActionPattern.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	return fallback
}

// errorCode returns the AWS error code of err, or "".
func errorCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// errorKey is what stays the same when AWS fails the same way twice (the message carries a
// new request id each time): the denied action, else the error code, else the message. Logs
// repeat only when it changes.
func errorKey(err error) string {
	var perr *PermissionError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &perr):
		return "denied " + perr.Action
	case errorCode(err) != "":
		return errorCode(err)
	}
	return err.Error()
}
