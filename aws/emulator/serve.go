package emulator

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// Serve runs the emulator on listen (host:port) until ctx ends, after printing the endpoints
// and the admin API to out. It is what `nodepilot emulator --listen` runs.
func Serve(ctx context.Context, cfg Config, listen string, out io.Writer) error {
	e, err := start(ctx, cfg, listen)
	if err != nil {
		return err
	}
	defer e.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "AWS emulator (EC2, IAM, SQS, SSM, Pricing) for region %s, account %s, cluster %q\n", e.cfg.Region, e.cfg.AccountID, e.cfg.ClusterName)
	fmt.Fprintf(&b, "  endpoint:          %s   (set it as every SDK client's BaseEndpoint, or AWS_ENDPOINT_URL)\n", e.Endpoint())
	fmt.Fprintf(&b, "  interruption queue: %s\n", e.QueueURL())
	for _, s := range e.Subnets() {
		fmt.Fprintf(&b, "  subnet %s in %s (%s), %d free addresses\n", s.ID, s.Zone, s.ZoneID, s.FreeAddresses)
	}
	fmt.Fprintf(&b, "  spot prices are synthetic (seeded random walk around the catalog's synthetic base)\n")
	fmt.Fprintf(&b, "admin API (JSON) at %s:\n", e.AdminEndpoint())
	for _, r := range AdminRoutes() {
		fmt.Fprintf(&b, "  %s\n", r)
	}
	if _, err := io.WriteString(out, b.String()); err != nil {
		return fmt.Errorf("emulator: print endpoints: %w", err)
	}
	select {
	case <-ctx.Done():
	case <-e.done:
	}
	return nil
}
