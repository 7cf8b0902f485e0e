package aws

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/executor"
)

// Long polling of the interruption queue.
const (
	queueWaitSeconds = 20
	queueMaxMessages = 10
	// queueBackoffMax bounds the wait between failed receives.
	queueBackoffMax = 30 * time.Second
)

// Queue is the interruption queue: the SQS queue EventBridge delivers EC2 spot interruption
// warnings, rebalance recommendations, instance state changes, capacity reservation
// interruptions and AWS Health scheduled changes to. It implements cloudprovider.Interruptions.
type Queue struct {
	provider *Provider
	sqs      SQSAPI
	queue    string
	log      *slog.Logger
}

var _ cloudprovider.Interruptions = (*Queue)(nil)

// Interruptions returns the interruption queue named queue (a name, or a queue URL).
func (p *Provider) Interruptions(queue string) *Queue {
	return &Queue{provider: p, sqs: p.clients.SQS, queue: queue, log: p.log}
}

// Run long-polls the queue (20 s, 10 messages) until ctx ends and calls handle for each event,
// one at a time. Each event names its instance's provider ID when the instance is one of this
// cluster's; events of other instances are dropped. A spot interruption also marks its offering
// unavailable. A message is deleted once every event in it was handled; one whose handling
// failed stays, so that SQS delivers it again; one that cannot be parsed is deleted with a
// warning. Receive failures are logged and retried with backoff. Run returns ctx's error, or
// an error when the queue cannot be found.
func (q *Queue) Run(ctx context.Context, handle func(context.Context, cloudprovider.Interruption) error) error {
	url, err := q.url(ctx)
	if err != nil {
		return err
	}
	backoff := time.Second
	var lastErr string
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		out, err := q.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl:            sdkaws.String(url),
			MaxNumberOfMessages: queueMaxMessages,
			WaitTimeSeconds:     queueWaitSeconds,
		})
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if key := errorKey(err); key != lastErr {
				q.log.Warn("receiving from the interruption queue failed; retrying", "queue", q.queue, "error", err)
				lastErr = key
			}
			if err := sleep(ctx, backoff); err != nil {
				return err
			}
			backoff = min(2*backoff, queueBackoffMax)
			continue
		}
		backoff, lastErr = time.Second, ""
		q.handleMessages(ctx, url, out.Messages, handle)
	}
}

// url resolves the queue's URL.
func (q *Queue) url(ctx context.Context) (string, error) {
	if strings.HasPrefix(q.queue, "https://") || strings.HasPrefix(q.queue, "http://") {
		return q.queue, nil
	}
	out, err := q.sqs.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: sdkaws.String(q.queue)})
	if err != nil {
		return "", fmt.Errorf("interruption queue %q: sqs GetQueueUrl: %w", q.queue, err)
	}
	return sdkaws.ToString(out.QueueUrl), nil
}

// handleMessages parses a batch, looks its instances up in one DescribeInstances, hands the
// events over and deletes the messages that are done with.
func (q *Queue) handleMessages(ctx context.Context, url string, msgs []sqstypes.Message, handle func(context.Context, cloudprovider.Interruption) error) {
	type pending struct {
		msg    sqstypes.Message
		events []cloudprovider.Interruption
	}
	var todo []pending
	var ids []string
	for _, m := range msgs {
		events, err := ParseMessage(sdkaws.ToString(m.Body))
		if err != nil {
			q.log.Warn("deleting an interruption queue message that is not an interruption event", "queue", q.queue,
				"message", sdkaws.ToString(m.MessageId), "error", err)
			q.delete(ctx, url, m)
			continue
		}
		todo = append(todo, pending{msg: m, events: events})
		for _, e := range events {
			ids = append(ids, e.InstanceID)
		}
	}
	known, lookedUp := q.instances(ctx, ids)
	for _, t := range todo {
		failed := false
		for _, e := range t.events {
			inst, ok := known[e.InstanceID]
			if lookedUp && !ok {
				continue // not a live instance of this cluster
			}
			if ok {
				e.ProviderID = providerID(inst.zone, inst.id)
				if e.Kind == cloudprovider.SpotInterruption {
					q.provider.unavailable.mark(offering{karpv1.CapacityTypeSpot, inst.instanceType, inst.zone})
				}
			}
			if err := handle(ctx, e); err != nil {
				q.log.Warn("handling an interruption failed; the queue will deliver it again", "kind", e.Kind,
					"instance", e.InstanceID, "error", err)
				failed = true
			}
		}
		if !failed {
			q.delete(ctx, url, t.msg)
		}
	}
}

// instances looks up the cluster's instances among ids. lookedUp is false when the lookup
// failed; the events then go out with their instance ids only.
func (q *Queue) instances(ctx context.Context, ids []string) (map[string]instance, bool) {
	if len(ids) == 0 {
		return nil, true
	}
	slices.Sort(ids)
	found, err := q.provider.describe(ctx, ec2types.Filter{Name: sdkaws.String("instance-id"), Values: slices.Compact(ids)})
	if err != nil {
		q.log.Warn("looking up interrupted instances failed; handling the events without them", "error", err)
		return nil, false
	}
	out := map[string]instance{}
	for _, inst := range found {
		if inst.tags[q.provider.clusterTagKey()] == "owned" {
			out[inst.id] = inst
		}
	}
	return out, true
}

func (q *Queue) delete(ctx context.Context, url string, m sqstypes.Message) {
	err := q.provider.opts.Act(ctx, executor.Action{Kind: executor.DeleteQueueMessage, Object: "sqs-message/" + sdkaws.ToString(m.MessageId),
		Message: "delete message " + sdkaws.ToString(m.MessageId) + " from queue " + q.queue}, func(ctx context.Context) error {
		_, err := q.sqs.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: sdkaws.String(url), ReceiptHandle: m.ReceiptHandle})
		return err
	})
	if err != nil && !errors.Is(err, context.Canceled) && !executor.NotPerformed(err) {
		q.log.Warn("deleting an interruption queue message failed; it will be delivered again",
			"message", sdkaws.ToString(m.MessageId), "error", err)
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
