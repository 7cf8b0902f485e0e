package emulator

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	clocktesting "k8s.io/utils/clock/testing"
)

// clients are the real SDK clients pointed at an emulator, with retries off.
type clients struct {
	ec2     *ec2.Client
	iam     *iam.Client
	sqs     *sqs.Client
	ssm     *ssm.Client
	pricing *pricing.Client
}

func sdkConfig(region string) aws.Config {
	return aws.Config{
		Region:      region,
		Credentials: credentials.NewStaticCredentialsProvider("AKIDEMULATOR", "secret", ""),
		Retryer:     func() aws.Retryer { return aws.NopRetryer{} },
	}
}

func clientsFor(e *Emulator) clients {
	cfg := sdkConfig(e.Region())
	cfg.HTTPClient = e.HTTPClient()
	ep := aws.String(e.Endpoint())
	return clients{
		ec2:     ec2.NewFromConfig(cfg, func(o *ec2.Options) { o.BaseEndpoint = ep }),
		iam:     iam.NewFromConfig(cfg, func(o *iam.Options) { o.BaseEndpoint = ep }),
		sqs:     sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.BaseEndpoint = ep }),
		ssm:     ssm.NewFromConfig(cfg, func(o *ssm.Options) { o.BaseEndpoint = ep }),
		pricing: pricing.NewFromConfig(cfg, func(o *pricing.Options) { o.BaseEndpoint = ep }),
	}
}

// testStart is the fake clock's start: a fixed instant, so that prices and ids repeat.
var testStart = time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)

// startFakeB is startFake for benchmarks.
func startFakeB(b *testing.B, cfg Config) (*Emulator, *clocktesting.FakeClock, clients) {
	b.Helper()
	fc := clocktesting.NewFakeClock(testStart)
	cfg.Clock = fc
	e, err := Start(context.Background(), cfg)
	if err != nil {
		b.Fatalf("Start: %v", err)
	}
	b.Cleanup(func() { _ = e.Close() })
	return e, fc, clientsFor(e)
}

// startFake starts an emulator on a fake clock; cfg's Clock is replaced. It stops with the test.
func startFake(t *testing.T, cfg Config) (*Emulator, *clocktesting.FakeClock, clients) {
	t.Helper()
	fc := clocktesting.NewFakeClock(testStart)
	cfg.Clock = fc
	e, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e, fc, clientsFor(e)
}

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// asError is errors.As, kept short for the table tests.
func asError[T error](err error, target *T) bool { return errors.As(err, target) }
