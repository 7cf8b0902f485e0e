package aws

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
)

// ErrNoRegion is returned by LoadConfig when no region is set anywhere the SDK looks.
var ErrNoRegion = errors.New("no AWS region: set --region or AWS_REGION, or region in the shared config of AWS_PROFILE; on EC2 the instance metadata service (IMDS) gives it")

// ErrNoCredentials is returned by LoadConfig when no credentials can be had from any source.
var ErrNoCredentials = errors.New("no AWS credentials: set AWS_PROFILE (a profile of ~/.aws/config), AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or web identity or pod identity (IRSA, EKS Pod Identity); on EC2 an instance profile gives them through IMDS")

// Bounds on what LoadConfig asks at start: off EC2 the instance metadata service does not answer,
// and the SDK's own retries would leave the user waiting with no word.
const (
	regionLookupTimeout      = 5 * time.Second
	credentialsLookupTimeout = 10 * time.Second
)

// ConfigOptions say how to find credentials and region, and how to retry.
type ConfigOptions struct {
	// Region overrides the environment and shared config (the --region flag).
	Region string
	// Profile selects a shared config profile; empty means AWS_PROFILE or "default".
	Profile string
	// Credentials, when set, replace the default chain (environment, shared config, web
	// identity and pod identity, IMDS). Tests set static credentials here.
	Credentials sdkaws.CredentialsProvider
	// DisableRetries turns the SDK's retries off, so that injected faults fail at once (tests).
	DisableRetries bool
	// MaxAttempts is the most attempts per call of the standard retryer, with exponential
	// backoff for throttling and transient errors; 0 means the SDK's default (3).
	MaxAttempts int
	// HTTPClient, when set, carries the SDK's requests (the emulator's client in tests and the
	// demo); nil means the SDK's default.
	HTTPClient sdkaws.HTTPClient
	// IMDSRegion lets the SDK ask the instance metadata service for the region when nothing
	// else sets it (a pod on EC2 without AWS_REGION).
	IMDSRegion bool
}

// LoadConfig loads the SDK configuration the standard way: credentials from the environment,
// shared config and credentials files, web identity or pod identity, or the instance metadata
// service; the region from opts.Region, AWS_REGION, the shared config or, when allowed, IMDS.
// A missing region is ErrNoRegion. Credentials are retrieved once, so that none to be had is
// ErrNoCredentials now, not a signing error at the first call.
func LoadConfig(ctx context.Context, opts ConfigOptions) (sdkaws.Config, error) {
	var loads []func(*config.LoadOptions) error
	if opts.Region != "" {
		loads = append(loads, config.WithRegion(opts.Region))
	}
	if opts.Profile != "" {
		loads = append(loads, config.WithSharedConfigProfile(opts.Profile))
	}
	if opts.Credentials != nil {
		loads = append(loads, config.WithCredentialsProvider(opts.Credentials))
	}
	switch {
	case opts.DisableRetries:
		loads = append(loads, config.WithRetryer(func() sdkaws.Retryer { return sdkaws.NopRetryer{} }))
	case opts.MaxAttempts > 0:
		loads = append(loads, config.WithRetryer(func() sdkaws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) { o.MaxAttempts = opts.MaxAttempts })
		}))
	}
	cfg, err := config.LoadDefaultConfig(ctx, loads...)
	if err != nil {
		return sdkaws.Config{}, fmt.Errorf("loading AWS configuration (profile %q): %w; check the profile in ~/.aws/config, AWS_PROFILE and AWS_CONFIG_FILE", opts.Profile, err)
	}
	if cfg.Region == "" && opts.IMDSRegion {
		cfg.Region, err = imdsRegion(ctx, cfg)
		if err != nil {
			return sdkaws.Config{}, fmt.Errorf("%w (asking IMDS: %v)", ErrNoRegion, err)
		}
	}
	if cfg.Region == "" {
		return sdkaws.Config{}, ErrNoRegion
	}
	credsCtx, cancel := context.WithTimeout(ctx, credentialsLookupTimeout)
	defer cancel()
	if cfg.Credentials == nil {
		return sdkaws.Config{}, ErrNoCredentials
	}
	if _, err := cfg.Credentials.Retrieve(credsCtx); err != nil {
		return sdkaws.Config{}, fmt.Errorf("%w (%v)", ErrNoCredentials, err)
	}
	if opts.HTTPClient != nil {
		// Set after loading: the environment's CA bundle (AWS_CA_BUNDLE) applies to the SDK's
		// own client only, and a loopback emulator needs none.
		cfg.HTTPClient = opts.HTTPClient
	}
	return cfg, nil
}

// imdsRegion asks the instance metadata service for the region, once and briefly: off EC2 it
// does not answer, and the SDK's retries would keep the user waiting.
func imdsRegion(ctx context.Context, cfg sdkaws.Config) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, regionLookupTimeout)
	defer cancel()
	client := imds.NewFromConfig(cfg, func(o *imds.Options) { o.Retryer = sdkaws.NopRetryer{} })
	out, err := client.GetRegion(ctx, &imds.GetRegionInput{})
	if err != nil {
		return "", err
	}
	return out.Region, nil
}

// Endpoints override the URL of each service, for the emulator and moto. Empty means AWS's.
type Endpoints struct {
	EC2     string
	SQS     string
	SSM     string
	Pricing string
	IAM     string
}

// All returns Endpoints with every service at url (an emulator serving them all on one port).
func (Endpoints) All(url string) Endpoints {
	return Endpoints{EC2: url, SQS: url, SSM: url, Pricing: url, IAM: url}
}

// NewClients builds the provider's clients from cfg. The Pricing client talks to the pricing
// endpoint region that serves cfg's region (PricingRegion). Every client counts its calls in
// the returned Clients.Calls and reports an AWS permission denial once, on log.
func NewClients(cfg sdkaws.Config, endpoints Endpoints, log *slog.Logger) Clients {
	calls := NewCallRecorder(log)
	cfg = cfg.Copy()
	cfg.APIOptions = append(cfg.APIOptions, calls.addMiddleware)
	return Clients{
		EC2: ec2.NewFromConfig(cfg, func(o *ec2.Options) { setEndpoint(&o.BaseEndpoint, endpoints.EC2) }),
		SQS: sqs.NewFromConfig(cfg, func(o *sqs.Options) { setEndpoint(&o.BaseEndpoint, endpoints.SQS) }),
		SSM: ssm.NewFromConfig(cfg, func(o *ssm.Options) { setEndpoint(&o.BaseEndpoint, endpoints.SSM) }),
		Pricing: pricing.NewFromConfig(cfg, func(o *pricing.Options) {
			o.Region = PricingRegion(cfg.Region)
			setEndpoint(&o.BaseEndpoint, endpoints.Pricing)
		}),
		IAM:   iam.NewFromConfig(cfg, func(o *iam.Options) { setEndpoint(&o.BaseEndpoint, endpoints.IAM) }),
		Calls: calls,
	}
}

func setEndpoint(dst **string, url string) {
	if url != "" {
		*dst = sdkaws.String(url)
	}
}

// PricingRegion is the region whose Price List API endpoint serves region's prices: the API
// answers only in us-east-1, eu-central-1, ap-south-1 and cn-northwest-1, each for every region.
func PricingRegion(region string) string {
	switch {
	case strings.HasPrefix(region, "cn-"):
		return "cn-northwest-1"
	case strings.HasPrefix(region, "eu-"):
		return "eu-central-1"
	case strings.HasPrefix(region, "ap-"):
		return "ap-south-1"
	default:
		return "us-east-1"
	}
}
