package emulator

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// queueAttributes are a queue's settings, in seconds (and bytes for the size).
type queueAttributes struct {
	VisibilityTimeout             int
	MessageRetentionPeriod        int
	ReceiveMessageWaitTimeSeconds int
	DelaySeconds                  int
	MaximumMessageSize            int
}

func (a queueAttributes) withDefaults() queueAttributes {
	if a.VisibilityTimeout == 0 {
		a.VisibilityTimeout = 30
	}
	if a.MessageRetentionPeriod == 0 {
		a.MessageRetentionPeriod = 345600
	}
	if a.MaximumMessageSize == 0 {
		a.MaximumMessageSize = 262144
	}
	return a
}

// queue is one standard SQS queue.
type queue struct {
	name     string
	created  time.Time
	attrs    queueAttributes
	tags     map[string]string
	messages []*message
	seq      int
}

type message struct {
	id, body, md5 string
	senderID      string
	sent          time.Time
	visibleAt     time.Time
	receiveCount  int
	firstReceive  time.Time
	handle        string
}

func newQueue(name string, now time.Time, attrs queueAttributes) *queue {
	return &queue{name: name, created: now, attrs: attrs.withDefaults(), tags: map[string]string{}}
}

func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// send appends a message sent at at, visible after delay.
func (q *queue) send(id, body, senderID string, at time.Time, delay time.Duration) *message {
	m := &message{id: id, body: body, md5: md5Hex(body), senderID: senderID, sent: at, visibleAt: at.Add(delay)}
	q.messages = append(q.messages, m)
	return m
}

// expire drops the messages older than the retention period.
func (q *queue) expire(now time.Time) {
	keep := q.messages[:0]
	for _, m := range q.messages {
		if now.Before(m.sent.Add(time.Duration(q.attrs.MessageRetentionPeriod) * time.Second)) {
			keep = append(keep, m)
		}
	}
	q.messages = keep
}

// receive takes up to max visible messages and hides them for visibility.
func (q *queue) receive(now time.Time, max int, visibility time.Duration) []*message {
	q.expire(now)
	var out []*message
	for _, m := range q.messages {
		if len(out) == max {
			break
		}
		if m.visibleAt.After(now) {
			continue
		}
		q.seq++
		m.receiveCount++
		if m.firstReceive.IsZero() {
			m.firstReceive = now
		}
		m.visibleAt = now.Add(visibility)
		m.handle = receiptHandle(q.name, m.id, q.seq)
		out = append(out, m)
	}
	return out
}

// nextVisible is the earliest time a hidden message becomes visible; ok is false if none.
func (q *queue) nextVisible(now time.Time) (time.Time, bool) {
	var next time.Time
	for _, m := range q.messages {
		if m.visibleAt.After(now) && (next.IsZero() || m.visibleAt.Before(next)) {
			next = m.visibleAt
		}
	}
	return next, !next.IsZero()
}

// remove deletes the message the handle names if the handle is its latest one; an older
// handle or a gone message is not an error, as in SQS.
func (q *queue) remove(handle string) {
	_, id, _, _ := parseReceiptHandle(handle)
	for i, m := range q.messages {
		if m.id == id {
			if m.handle == handle {
				q.messages = append(q.messages[:i], q.messages[i+1:]...)
			}
			return
		}
	}
}

// receiptHandle encodes the queue, the message and the receive number.
func receiptHandle(queueName, messageID string, seq int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("np1/" + queueName + "/" + messageID + "/" + strconv.Itoa(seq)))
}

func parseReceiptHandle(h string) (queueName, messageID string, seq int, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(h)
	if err != nil {
		return "", "", 0, false
	}
	parts := strings.Split(string(b), "/")
	if len(parts) != 4 || parts[0] != "np1" {
		return "", "", 0, false
	}
	n, err := strconv.Atoi(parts[3])
	if err != nil {
		return "", "", 0, false
	}
	return parts[1], parts[2], n, true
}

// validQueueName: 1 to 80 letters, digits, hyphens and underscores.
func validQueueName(name string) bool {
	if len(name) == 0 || len(name) > 80 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// validMessageBody checks SQS's allowed characters: #x9 #xA #xD #x20-#xD7FF #xE000-#xFFFD
// #x10000-#x10FFFF.
func validMessageBody(body string) bool {
	for _, r := range body {
		switch {
		case r == 0x9 || r == 0xA || r == 0xD:
		case r >= 0x20 && r <= 0xD7FF:
		case r >= 0xE000 && r <= 0xFFFD:
		case r >= 0x10000 && r <= 0x10FFFF:
		default:
			return false
		}
	}
	return true
}
