package cloudprovider

import "context"

type controllerKey struct{}

// WithController names the loop calling the cloud provider through ctx, by the name of
// Karpenter's controller that makes the same calls, so that its metrics label them as Karpenter's.
func WithController(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, controllerKey{}, name)
}

// ControllerOf returns the name WithController gave ctx, or "".
func ControllerOf(ctx context.Context) string {
	name, _ := ctx.Value(controllerKey{}).(string)
	return name
}
