// Package policy embeds the least-privilege IAM policy nodepilot's controller needs
// (controller-policy.json) and fills in its placeholders for an account, region and cluster.
package policy

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

//go:embed controller-policy.json
var document []byte

// Document returns the policy as stored, with its ${PLACEHOLDERS}.
func Document() []byte { return bytes.Clone(document) }

// Params fill the policy's placeholders.
type Params struct {
	// Partition is "aws", "aws-cn" or "aws-us-gov".
	Partition string
	Region    string
	AccountID string
	// ClusterName scopes the tag conditions.
	ClusterName string
	// QueueName is the interruption queue's name.
	QueueName string
	// NodeRole is the name of the role nodes run as (the EC2NodeClasses' spec.role).
	NodeRole string
}

// Render returns the policy for an account, region and cluster.
func Render(p Params) ([]byte, error) {
	values := map[string]string{
		"AWS_PARTITION":  p.Partition,
		"AWS_REGION":     p.Region,
		"AWS_ACCOUNT_ID": p.AccountID,
		"CLUSTER_NAME":   p.ClusterName,
		"QUEUE_NAME":     p.QueueName,
		"NODE_ROLE":      p.NodeRole,
	}
	var missing []string
	out := string(document)
	for key, value := range values {
		if value == "" {
			missing = append(missing, key)
		}
		out = strings.ReplaceAll(out, "${"+key+"}", value)
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, fmt.Errorf("controller policy: no value for %s", strings.Join(missing, ", "))
	}
	if !json.Valid([]byte(out)) {
		return nil, fmt.Errorf("controller policy: a value broke the JSON (%v)", p)
	}
	return []byte(out), nil
}

// Statement is one statement of an IAM policy.
type Statement struct {
	Sid      string
	Effect   string
	Action   stringOrList
	Resource stringOrList
}

// Statements parses the embedded policy's statements.
func Statements() ([]Statement, error) {
	var doc struct{ Statement []Statement }
	if err := json.Unmarshal(document, &doc); err != nil {
		return nil, fmt.Errorf("controller-policy.json: %w", err)
	}
	return doc.Statement, nil
}

// Actions lists every action the policy allows, sorted and without duplicates.
func Actions() ([]string, error) {
	statements, err := Statements()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range statements {
		if s.Effect == "Allow" {
			out = append(out, s.Action...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// stringOrList is an IAM policy element that is a string or a list of strings.
type stringOrList []string

func (s *stringOrList) UnmarshalJSON(data []byte) error {
	var one string
	if err := json.Unmarshal(data, &one); err == nil {
		*s = []string{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(data, &many); err != nil {
		return err
	}
	*s = many
	return nil
}
