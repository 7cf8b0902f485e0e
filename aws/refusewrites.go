package aws

import (
	"context"
	"fmt"
	"strings"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"
)

// RefuseWrites returns a copy of cfg whose clients refuse, before anything is sent, every
// operation that is not a read (Describe*, Get*, List*). Read-only and dry-run runs use it, so
// that no code path, however it was reached, can change the account. mode names the run in the
// error ("read-only", "dry-run").
func RefuseWrites(cfg sdkaws.Config, mode string) sdkaws.Config {
	cfg = cfg.Copy()
	cfg.APIOptions = append(cfg.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("nodepilotRefuseWrites",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				op := awsmiddleware.GetOperationName(ctx)
				if !IsRead(op) {
					action := iamAction(awsmiddleware.GetServiceID(ctx), op)
					return middleware.InitializeOutput{}, middleware.Metadata{}, fmt.Errorf("%s refused: nodepilot runs %s and changes nothing in AWS", action, mode)
				}
				return next.HandleInitialize(ctx, in)
			}), middleware.Before)
	})
	return cfg
}

// IsRead reports whether an AWS operation only reads. SQS ReceiveMessage is not one: it hides
// the messages it returns from every other reader until their visibility timeout ends.
func IsRead(operation string) bool {
	for _, prefix := range []string{"Describe", "Get", "List"} {
		if strings.HasPrefix(operation, prefix) {
			return true
		}
	}
	return false
}
