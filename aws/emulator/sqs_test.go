package emulator

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/nodepilot/nodepilot/internal/eventually"
)

// waitForWaiters blocks until the fake clock has n waiters: a long poll is then waiting.
func waitForWaiters(t *testing.T, fc *clocktesting.FakeClock, n int) {
	t.Helper()
	eventually.True(t, 10*time.Second, fmt.Sprintf("%d waiters on the fake clock", n), func(context.Context) (bool, string) {
		return fc.Waiters() >= n, fmt.Sprintf("%d waiters", fc.Waiters())
	})
}

type received struct {
	out *sqs.ReceiveMessageOutput
	err error
}

func TestSQSQueues(t *testing.T) {
	e, _, c := startFake(t, Config{QueueName: "interruptions"})
	got, err := c.sqs.GetQueueUrl(ctx(t), &sqs.GetQueueUrlInput{QueueName: aws.String("interruptions")})
	if err != nil || *got.QueueUrl != e.QueueURL() {
		t.Fatalf("GetQueueUrl: %v %v, want %s", err, got, e.QueueURL())
	}
	_, err = c.sqs.GetQueueUrl(ctx(t), &sqs.GetQueueUrlInput{QueueName: aws.String("nope")})
	var dne *sqstypes.QueueDoesNotExist
	if !errors.As(err, &dne) || apiCode(err) != "AWS.SimpleQueueService.NonExistentQueue" {
		t.Errorf("unknown queue: %v (code %q), want QueueDoesNotExist with the query code", err, apiCode(err))
	}
	attrs := map[string]string{"MessageRetentionPeriod": "300"}
	a, err := c.sqs.CreateQueue(ctx(t), &sqs.CreateQueueInput{QueueName: aws.String("other"), Attributes: attrs})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.sqs.CreateQueue(ctx(t), &sqs.CreateQueueInput{QueueName: aws.String("other"), Attributes: attrs})
	if err != nil || *a.QueueUrl != *b.QueueUrl {
		t.Errorf("create twice with the same attributes: %v", err)
	}
	_, err = c.sqs.CreateQueue(ctx(t), &sqs.CreateQueueInput{QueueName: aws.String("other"), Attributes: map[string]string{"MessageRetentionPeriod": "600"}})
	var exists *sqstypes.QueueNameExists
	if !errors.As(err, &exists) {
		t.Errorf("create with other attributes: %v, want QueueNameExists", err)
	}
	for _, bad := range []struct {
		name  string
		attrs map[string]string
	}{{"bad name!", nil}, {"ok", map[string]string{"VisibilityTimeout": "-1"}}, {"ok", map[string]string{"Colour": "red"}}} {
		if _, err := c.sqs.CreateQueue(ctx(t), &sqs.CreateQueueInput{QueueName: aws.String(bad.name), Attributes: bad.attrs}); err == nil {
			t.Errorf("CreateQueue(%q, %v) succeeded", bad.name, bad.attrs)
		}
	}
}

func TestSQSSendReceiveDelete(t *testing.T) {
	e, fc, c := startFake(t, Config{})
	url := aws.String(e.QueueURL())
	body := `{"hello":"world"}`
	sent, err := c.sqs.SendMessage(ctx(t), &sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String(body)})
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum([]byte(body))
	if *sent.MD5OfMessageBody != hex.EncodeToString(sum[:]) {
		t.Errorf("MD5 %s", *sent.MD5OfMessageBody)
	}
	first, err := c.sqs.ReceiveMessage(ctx(t), &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 10, VisibilityTimeout: 30,
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll}})
	if err != nil || len(first.Messages) != 1 || *first.Messages[0].Body != body || *first.Messages[0].MessageId != *sent.MessageId {
		t.Fatalf("receive: %v %+v", err, first)
	}
	if first.Messages[0].Attributes["ApproximateReceiveCount"] != "1" ||
		first.Messages[0].Attributes["SentTimestamp"] != strconv.FormatInt(testStart.UnixMilli(), 10) {
		t.Errorf("attributes %v", first.Messages[0].Attributes)
	}
	hidden, err := c.sqs.ReceiveMessage(ctx(t), &sqs.ReceiveMessageInput{QueueUrl: url})
	if err != nil || len(hidden.Messages) != 0 {
		t.Fatalf("receive while invisible: %v %d", err, len(hidden.Messages))
	}
	fc.Step(30 * time.Second)
	second, err := c.sqs.ReceiveMessage(ctx(t), &sqs.ReceiveMessageInput{QueueUrl: url, MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameApproximateReceiveCount}})
	if err != nil || len(second.Messages) != 1 {
		t.Fatalf("redelivery after the visibility timeout: %v %+v", err, second)
	}
	if *second.Messages[0].ReceiptHandle == *first.Messages[0].ReceiptHandle || second.Messages[0].Attributes["ApproximateReceiveCount"] != "2" {
		t.Errorf("redelivered with handle %s count %v", *second.Messages[0].ReceiptHandle, second.Messages[0].Attributes)
	}
	// The stale handle deletes nothing; the latest one deletes the message.
	if _, err := c.sqs.DeleteMessage(ctx(t), &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: first.Messages[0].ReceiptHandle}); err != nil {
		t.Fatal(err)
	}
	fc.Step(30 * time.Second)
	third, err := c.sqs.ReceiveMessage(ctx(t), &sqs.ReceiveMessageInput{QueueUrl: url, VisibilityTimeout: 0})
	if err != nil || len(third.Messages) != 1 {
		t.Fatalf("after a stale delete: %v %d, want the message back", err, len(third.Messages))
	}
	if _, err := c.sqs.DeleteMessage(ctx(t), &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: third.Messages[0].ReceiptHandle}); err != nil {
		t.Fatal(err)
	}
	gone, err := c.sqs.ReceiveMessage(ctx(t), &sqs.ReceiveMessageInput{QueueUrl: url})
	if err != nil || len(gone.Messages) != 0 {
		t.Errorf("after delete: %v %d", err, len(gone.Messages))
	}
	_, err = c.sqs.DeleteMessage(ctx(t), &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: aws.String("garbage")})
	var invalid *sqstypes.ReceiptHandleIsInvalid
	if !errors.As(err, &invalid) {
		t.Errorf("invalid handle: %v", err)
	}
	if _, err := c.sqs.ReceiveMessage(ctx(t), &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 11}); apiCode(err) != "InvalidParameterValue" {
		t.Errorf("11 messages: %v (code %q)", err, apiCode(err))
	}
	if _, err := c.sqs.ReceiveMessage(ctx(t), &sqs.ReceiveMessageInput{QueueUrl: aws.String(e.Endpoint() + "/123456789012/nope")}); apiCode(err) != "AWS.SimpleQueueService.NonExistentQueue" {
		t.Errorf("unknown queue url: %v", err)
	}
}

func TestSQSMaxMessagesAndOrder(t *testing.T) {
	e, _, c := startFake(t, Config{})
	url := aws.String(e.QueueURL())
	for i := range 13 {
		if _, err := c.sqs.SendMessage(ctx(t), &sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String(strconv.Itoa(i))}); err != nil {
			t.Fatal(err)
		}
	}
	a, err := c.sqs.ReceiveMessage(ctx(t), &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 10})
	if err != nil || len(a.Messages) != 10 || *a.Messages[0].Body != "0" {
		t.Fatalf("first batch: %v %d", err, len(a.Messages))
	}
	b, err := c.sqs.ReceiveMessage(ctx(t), &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 10})
	if err != nil || len(b.Messages) != 3 || *b.Messages[0].Body != "10" {
		t.Fatalf("second batch: %v %d", err, len(b.Messages))
	}
}

func TestSQSLongPoll(t *testing.T) {
	tests := []struct {
		name string
		// act happens once the poll waits; it returns whether the poll must return a message.
		act func(t *testing.T, e *Emulator, fc *clocktesting.FakeClock, c clients) bool
	}{
		{"returns early when a message arrives", func(t *testing.T, e *Emulator, _ *clocktesting.FakeClock, c clients) bool {
			if _, err := c.sqs.SendMessage(ctx(t), &sqs.SendMessageInput{QueueUrl: aws.String(e.QueueURL()), MessageBody: aws.String("x")}); err != nil {
				t.Fatal(err)
			}
			return true
		}},
		{"returns empty after WaitTimeSeconds", func(t *testing.T, _ *Emulator, fc *clocktesting.FakeClock, _ clients) bool {
			fc.Step(5 * time.Second)
			return false
		}},
		{"returns when a hidden message becomes visible", func(t *testing.T, e *Emulator, fc *clocktesting.FakeClock, c clients) bool {
			fc.Step(3 * time.Second) // the delayed message sent before the poll becomes visible
			return true
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, fc, c := startFake(t, Config{})
			url := aws.String(e.QueueURL())
			if tt.name == "returns when a hidden message becomes visible" {
				if _, err := c.sqs.SendMessage(ctx(t), &sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String("later"), DelaySeconds: 3}); err != nil {
					t.Fatal(err)
				}
			}
			done := make(chan received, 1)
			go func() {
				out, err := c.sqs.ReceiveMessage(ctx(t), &sqs.ReceiveMessageInput{QueueUrl: url, WaitTimeSeconds: 5})
				done <- received{out, err}
			}()
			waitForWaiters(t, fc, 1)
			select {
			case r := <-done:
				t.Fatalf("the poll returned before anything happened: %+v %v", r.out, r.err)
			default:
			}
			wantMessage := tt.act(t, e, fc, c)
			r := eventually.Receive(t, 10*time.Second, "the long poll's answer", done)
			if r.err != nil {
				t.Fatal(r.err)
			}
			if got := len(r.out.Messages) == 1; got != wantMessage {
				t.Errorf("poll returned %d messages, want a message: %v", len(r.out.Messages), wantMessage)
			}
		})
	}
}

func TestSQSLongPollEndsWithTheEmulator(t *testing.T) {
	e, fc, c := startFake(t, Config{})
	done := make(chan received, 1)
	go func() {
		out, err := c.sqs.ReceiveMessage(ctx(t), &sqs.ReceiveMessageInput{QueueUrl: aws.String(e.QueueURL()), WaitTimeSeconds: 20})
		done <- received{out, err}
	}()
	waitForWaiters(t, fc, 1)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// Close ends the poll (the client sees an empty answer or a closed connection).
	eventually.Receive(t, 10*time.Second, "the long poll's end when the emulator closed", done)
}

// TestParseQueueAttributes: numeric attributes are taken within the ranges SQS accepts and
// refused outside them or when not numbers, naming the attribute; attributes the emulator has no
// use for are accepted; unknown ones are refused.
func TestParseQueueAttributes(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   map[string]string
		want queueAttributes
		code string
	}{
		{"in range", map[string]string{"VisibilityTimeout": "30", "MessageRetentionPeriod": "60", "ReceiveMessageWaitTimeSeconds": "20", "DelaySeconds": "0", "MaximumMessageSize": "262144"},
			queueAttributes{VisibilityTimeout: 30, MessageRetentionPeriod: 60, ReceiveMessageWaitTimeSeconds: 20, MaximumMessageSize: 262144}, ""},
		{"below its range", map[string]string{"MessageRetentionPeriod": "59"}, queueAttributes{}, "InvalidAttributeValue"},
		{"above its range", map[string]string{"ReceiveMessageWaitTimeSeconds": "21"}, queueAttributes{}, "InvalidAttributeValue"},
		{"not a number", map[string]string{"DelaySeconds": "soon"}, queueAttributes{}, "InvalidAttributeValue"},
		{"accepted and ignored", map[string]string{"Policy": "{}", "SqsManagedSseEnabled": "true"}, queueAttributes{}, ""},
		{"unknown", map[string]string{"FifoQueue": "true"}, queueAttributes{}, "InvalidAttributeName"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseQueueAttributes(tc.in)
			switch {
			case tc.code != "":
				if err == nil || err.code != tc.code {
					t.Fatalf("parseQueueAttributes(%v) error %v, want %s", tc.in, err, tc.code)
				}
				for name := range tc.in {
					if !strings.Contains(err.message, name) {
						t.Errorf("error %q does not name %s", err.message, name)
					}
				}
			case err != nil:
				t.Fatalf("parseQueueAttributes(%v): %v", tc.in, err)
			case got != tc.want:
				t.Errorf("parseQueueAttributes(%v) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}
