package emulator

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"
)

func (e *Emulator) queueURL(name string) string {
	return e.endpoint + "/" + e.cfg.AccountID + "/" + name
}

// queueByURL finds a queue by its URL; any host is accepted, the path names account and queue.
// The caller holds e.mu.
func (e *Emulator) queueByURL(raw string) (*queue, *apiError) {
	if raw == "" {
		return nil, newError(0, "MissingParameter", "The request must contain the parameter QueueUrl.")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, newError(0, "InvalidAddress", "The address "+raw+" is not valid for this endpoint.")
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) != 2 {
		return nil, newError(0, "InvalidAddress", "The address "+raw+" is not valid for this endpoint.")
	}
	q := e.queues[parts[1]]
	if q == nil || parts[0] != e.cfg.AccountID {
		return nil, newError(0, "QueueDoesNotExist", "The specified queue does not exist.")
	}
	return q, nil
}

type queueURLOutput struct {
	QueueURL string `json:"QueueUrl"`
}

func (e *Emulator) getQueueURL(_ context.Context, body []byte) (any, error) {
	var in struct {
		QueueName              string
		QueueOwnerAWSAccountID string `json:"QueueOwnerAWSAccountId"`
	}
	if err := decodeJSON(body, &in); err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.queues[in.QueueName] == nil || in.QueueOwnerAWSAccountID != "" && in.QueueOwnerAWSAccountID != e.cfg.AccountID {
		return nil, newError(0, "QueueDoesNotExist", "The specified queue does not exist.")
	}
	return queueURLOutput{QueueURL: e.queueURL(in.QueueName)}, nil
}

func (e *Emulator) createQueue(_ context.Context, body []byte) (any, error) {
	var in struct {
		QueueName  string
		Attributes map[string]string
		Tags       map[string]string `json:"tags"`
	}
	if err := decodeJSON(body, &in); err != nil {
		return nil, err
	}
	if !validQueueName(in.QueueName) {
		return nil, newError(0, "InvalidParameterValue", "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length")
	}
	attrs, err := parseQueueAttributes(in.Attributes)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if q := e.queues[in.QueueName]; q != nil {
		if len(in.Attributes) > 0 && q.attrs != attrs.withDefaults() {
			return nil, newError(0, "QueueNameExists", "A queue already exists with the same name and a different value for an attribute")
		}
		return queueURLOutput{QueueURL: e.queueURL(in.QueueName)}, nil
	}
	q := newQueue(in.QueueName, e.now(), attrs)
	for k, v := range in.Tags {
		q.tags[k] = v
	}
	e.queues[in.QueueName] = q
	return queueURLOutput{QueueURL: e.queueURL(in.QueueName)}, nil
}

func parseQueueAttributes(in map[string]string) (queueAttributes, *apiError) {
	var a queueAttributes
	// The numeric attributes and the ranges SQS accepts for them.
	numeric := map[string]struct {
		lo, hi int
		to     *int
	}{
		"VisibilityTimeout":             {0, 43200, &a.VisibilityTimeout},
		"MessageRetentionPeriod":        {60, 1209600, &a.MessageRetentionPeriod},
		"ReceiveMessageWaitTimeSeconds": {0, 20, &a.ReceiveMessageWaitTimeSeconds},
		"DelaySeconds":                  {0, 900, &a.DelaySeconds},
		"MaximumMessageSize":            {1024, 262144, &a.MaximumMessageSize},
	}
	for name, v := range in {
		if r, ok := numeric[name]; ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < r.lo || n > r.hi {
				return a, newError(0, "InvalidAttributeValue", "Invalid value for the parameter "+name+".")
			}
			*r.to = n
			continue
		}
		switch name {
		case "Policy", "SqsManagedSseEnabled", "KmsMasterKeyId", "KmsDataKeyReusePeriodSeconds", "RedrivePolicy", "RedriveAllowPolicy":
			// Accepted and ignored: the emulator has no permissions, encryption or dead-letter queues.
		default:
			return a, newError(0, "InvalidAttributeName", "Unknown Attribute "+name+".")
		}
	}
	return a, nil
}

type sendMessageOutput struct {
	MD5OfMessageBody string
	MessageID        string `json:"MessageId"`
}

func (e *Emulator) sendMessage(_ context.Context, body []byte) (any, error) {
	var in struct {
		QueueURL     string `json:"QueueUrl"`
		MessageBody  string
		DelaySeconds *int
	}
	if err := decodeJSON(body, &in); err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	q, err := e.queueByURL(in.QueueURL)
	if err != nil {
		return nil, err
	}
	if in.MessageBody == "" {
		return nil, newError(0, "MissingParameter", "The request must contain the parameter MessageBody.")
	}
	if len(in.MessageBody) > q.attrs.MaximumMessageSize {
		return nil, newError(0, "InvalidParameterValue", "One or more parameters are invalid. Reason: Message must be shorter than "+strconv.Itoa(q.attrs.MaximumMessageSize)+" bytes.")
	}
	if !validMessageBody(in.MessageBody) {
		return nil, newError(0, "InvalidMessageContents", "Invalid characters found.")
	}
	delay := q.attrs.DelaySeconds
	if in.DelaySeconds != nil {
		if *in.DelaySeconds < 0 || *in.DelaySeconds > 900 {
			return nil, newError(0, "InvalidParameterValue", "Value "+strconv.Itoa(*in.DelaySeconds)+" for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900.")
		}
		delay = *in.DelaySeconds
	}
	m := q.send(e.newUUID(), in.MessageBody, "AIDA"+strings.ToUpper(hashHex(e.cfg.AccountID, 17)), e.now(), time.Duration(delay)*time.Second)
	e.broadcast()
	return sendMessageOutput{MD5OfMessageBody: m.md5, MessageID: m.id}, nil
}

type receiveMessageOutput struct {
	Messages []sqsMessage `json:"Messages,omitempty"`
}

type sqsMessage struct {
	MessageID     string `json:"MessageId"`
	ReceiptHandle string
	MD5OfBody     string
	Body          string
	Attributes    map[string]string `json:",omitempty"`
}

// receiveMessage returns up to MaxNumberOfMessages visible messages; with WaitTimeSeconds it
// waits (in emulator time) until one arrives, one becomes visible again, or the wait ends.
func (e *Emulator) receiveMessage(ctx context.Context, body []byte) (any, error) {
	var in struct {
		QueueURL                    string `json:"QueueUrl"`
		MaxNumberOfMessages         *int
		VisibilityTimeout           *int
		WaitTimeSeconds             *int
		AttributeNames              []string
		MessageSystemAttributeNames []string
	}
	if err := decodeJSON(body, &in); err != nil {
		return nil, err
	}
	max := 1
	if in.MaxNumberOfMessages != nil {
		max = *in.MaxNumberOfMessages
		if max < 1 || max > 10 {
			return nil, newError(0, "InvalidParameterValue", "Value "+strconv.Itoa(max)+" for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.")
		}
	}
	if in.WaitTimeSeconds != nil && (*in.WaitTimeSeconds < 0 || *in.WaitTimeSeconds > 20) {
		return nil, newError(0, "InvalidParameterValue", "Value "+strconv.Itoa(*in.WaitTimeSeconds)+" for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided.")
	}
	if in.VisibilityTimeout != nil && (*in.VisibilityTimeout < 0 || *in.VisibilityTimeout > 43200) {
		return nil, newError(0, "InvalidParameterValue", "Value "+strconv.Itoa(*in.VisibilityTimeout)+" for parameter VisibilityTimeout is invalid. Reason: Must be >= 0 and <= 43200, if provided.")
	}
	attrNames := append(in.AttributeNames, in.MessageSystemAttributeNames...)

	e.mu.Lock()
	q, err := e.queueByURL(in.QueueURL)
	if err != nil {
		e.mu.Unlock()
		return nil, err
	}
	wait := time.Duration(q.attrs.ReceiveMessageWaitTimeSeconds) * time.Second
	if in.WaitTimeSeconds != nil {
		wait = time.Duration(*in.WaitTimeSeconds) * time.Second
	}
	visibility := time.Duration(q.attrs.VisibilityTimeout) * time.Second
	if in.VisibilityTimeout != nil {
		visibility = time.Duration(*in.VisibilityTimeout) * time.Second
	}
	deadline := e.now().Add(wait)
	e.mu.Unlock()

	for {
		e.mu.Lock()
		e.advance()
		now := e.now()
		msgs := q.receive(now, max, visibility)
		out := receiveMessageOutput{}
		for _, m := range msgs {
			out.Messages = append(out.Messages, sqsMessage{MessageID: m.id, ReceiptHandle: m.handle, MD5OfBody: m.md5, Body: m.body,
				Attributes: messageAttributes(m, attrNames)})
		}
		changed := e.changed
		wake, hidden := q.nextVisible(now)
		e.mu.Unlock()
		if len(msgs) > 0 || !now.Before(deadline) {
			return out, nil
		}
		if !hidden || wake.After(deadline) {
			wake = deadline
		}
		t := e.clock.NewTimer(wake.Sub(now))
		select {
		case <-t.C():
		case <-changed:
		case <-ctx.Done():
			t.Stop()
			return nil, newError(0, "RequestCanceled", "the client went away")
		case <-e.done:
			t.Stop()
			return receiveMessageOutput{}, nil
		}
		t.Stop()
	}
}

func messageAttributes(m *message, names []string) map[string]string {
	all := map[string]string{
		"SenderId":                         m.senderID,
		"SentTimestamp":                    strconv.FormatInt(m.sent.UnixMilli(), 10),
		"ApproximateReceiveCount":          strconv.Itoa(m.receiveCount),
		"ApproximateFirstReceiveTimestamp": strconv.FormatInt(m.firstReceive.UnixMilli(), 10),
	}
	out := map[string]string{}
	for _, n := range names {
		if n == "All" {
			return all
		}
		if v, ok := all[n]; ok {
			out[n] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func (e *Emulator) deleteMessage(_ context.Context, body []byte) (any, error) {
	var in struct {
		QueueURL      string `json:"QueueUrl"`
		ReceiptHandle string
	}
	if err := decodeJSON(body, &in); err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	q, err := e.queueByURL(in.QueueURL)
	if err != nil {
		return nil, err
	}
	name, _, _, ok := parseReceiptHandle(in.ReceiptHandle)
	if !ok || name != q.name {
		return nil, newError(0, "ReceiptHandleIsInvalid", "The input receipt handle \""+in.ReceiptHandle+"\" is not a valid receipt handle.")
	}
	q.remove(in.ReceiptHandle)
	return struct{}{}, nil
}
