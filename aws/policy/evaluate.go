package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Evaluator decides requests against one identity-based IAM policy with IAM's rules: a Deny
// whose action, resource and conditions match wins; else an Allow that matches allows; else the
// request is refused (the implicit deny). Build it with NewEvaluator from a rendered document.
//
// It reads the elements an identity-based policy has (Version, Id, Statement with Sid, Effect,
// Action or NotAction, Resource or NotResource, Condition) and the condition operators of the
// String family (StringEquals, StringNotEquals, StringEqualsIgnoreCase,
// StringNotEqualsIgnoreCase, StringLike, StringNotLike), Bool and Null, each with the
// ForAllValues: and ForAnyValue: qualifiers and the IfExists suffix. A policy with anything else
// (another operator, policy variables such as ${aws:username}, a Principal) is refused when it
// is loaded, naming what is missing, rather than evaluated wrongly.
type Evaluator struct {
	statements []statement
}

// Request is one authorization AWS makes for a call: an action on resources, with the
// request's condition keys. A call that touches several resources is allowed only if every one
// of them is.
type Request struct {
	// Action is the IAM action, such as ec2:CreateFleet (matched case-insensitively).
	Action string
	// Resources are the ARNs the action touches; none means "*", as for the actions that have
	// no resource-level permissions.
	Resources []string
	// Context holds the condition keys and their values: aws:RequestedRegion,
	// aws:RequestTag/KEY, aws:TagKeys, aws:ResourceTag/KEY, iam:PassedToService... Key names are
	// case-insensitive, as in IAM; a key that is absent or has no value is not in the request.
	Context map[string][]string
}

// Decision is the answer to a Request.
type Decision struct {
	Allowed bool
	// Denied is true when a Deny statement matched: no Allow overrides it.
	Denied bool
	// Resource is the first resource that was refused ("" when allowed).
	Resource string
	// Statement is the Sid of the statement that decided: the Deny that matched, or the Allow
	// that allowed the last resource; "" for an implicit deny.
	Statement string
}

// statement is one parsed statement, its patterns compiled.
type statement struct {
	sid         string
	deny        bool
	notAction   bool
	actions     []*regexp.Regexp
	notResource bool
	resources   []*regexp.Regexp
	conditions  []condition
}

// condition is one key of one operator of a Condition block.
type condition struct {
	// operator is the base operator (StringEquals...) without its qualifier and suffix.
	operator string
	forAll   bool
	forAny   bool
	ifExists bool
	// key is the condition key, lower-cased.
	key    string
	values []string
	// patterns are the values compiled, for StringLike and StringNotLike.
	patterns []*regexp.Regexp
}

// operators are the base condition operators the evaluator implements, and whether each is a
// negated one (true when the key is absent).
func operators() map[string]bool {
	return map[string]bool{
		"StringEquals": false, "StringNotEquals": true,
		"StringEqualsIgnoreCase": false, "StringNotEqualsIgnoreCase": true,
		"StringLike": false, "StringNotLike": true,
		"Bool": false, "Null": false,
	}
}

// NewEvaluator parses a rendered policy document. It refuses a document it cannot evaluate
// exactly: an unknown element, a condition operator it does not implement, a policy variable or
// an unrendered ${PLACEHOLDER}.
func NewEvaluator(doc []byte) (*Evaluator, error) {
	var top struct {
		Version   string
		ID        string `json:"Id"`
		Statement json.RawMessage
	}
	if err := strictDecode(doc, &top); err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	switch top.Version {
	case "2012-10-17":
	case "", "2008-10-17":
		// The old version has no policy variables, which the evaluator refuses anyway.
	default:
		return nil, fmt.Errorf("policy: version %q: want 2012-10-17", top.Version)
	}
	var raws []json.RawMessage
	if trimmed := bytes.TrimSpace(top.Statement); len(trimmed) > 0 && trimmed[0] == '{' {
		raws = []json.RawMessage{trimmed}
	} else if err := json.Unmarshal(top.Statement, &raws); err != nil {
		return nil, fmt.Errorf("policy: Statement: %w", err)
	}
	if len(raws) == 0 {
		return nil, errors.New("policy: no statement")
	}
	ev := &Evaluator{}
	for i, raw := range raws {
		s, err := parseStatement(raw)
		if err != nil {
			return nil, fmt.Errorf("policy: statement %d%s: %w", i+1, sidNote(raw), err)
		}
		ev.statements = append(ev.statements, s)
	}
	return ev, nil
}

// sidNote names a statement's Sid, if it has one, for an error.
func sidNote(raw json.RawMessage) string {
	var s struct{ Sid string }
	if json.Unmarshal(raw, &s) == nil && s.Sid != "" {
		return fmt.Sprintf(" (%s)", s.Sid)
	}
	return ""
}

type rawStatement struct {
	Sid         string
	Effect      string
	Action      stringOrList
	NotAction   stringOrList
	Resource    stringOrList
	NotResource stringOrList
	Condition   map[string]map[string]conditionValues
}

func parseStatement(raw json.RawMessage) (statement, error) {
	var r rawStatement
	if err := strictDecode(raw, &r); err != nil {
		return statement{}, err
	}
	s := statement{sid: r.Sid}
	switch r.Effect {
	case "Allow":
	case "Deny":
		s.deny = true
	default:
		return statement{}, fmt.Errorf("effect %q: want Allow or Deny", r.Effect)
	}
	actions, err := exactlyOne("Action", r.Action, r.NotAction)
	if err != nil {
		return statement{}, err
	}
	s.notAction = r.NotAction != nil
	for _, a := range actions {
		s.actions = append(s.actions, globPattern(a, true))
	}
	resources, err := exactlyOne("Resource", r.Resource, r.NotResource)
	if err != nil {
		return statement{}, err
	}
	s.notResource = r.NotResource != nil
	for _, res := range resources {
		if err := noVariable("resource", res); err != nil {
			return statement{}, err
		}
		s.resources = append(s.resources, arnPattern(res))
	}
	for op, keys := range r.Condition {
		for key, values := range keys {
			c, err := parseCondition(op, key, values)
			if err != nil {
				return statement{}, err
			}
			s.conditions = append(s.conditions, c)
		}
	}
	return s, nil
}

// exactlyOne returns the element of a pair such as Action and NotAction that is set, and
// refuses a statement with both or neither.
func exactlyOne(name string, plain, not stringOrList) ([]string, error) {
	switch {
	case plain != nil && not != nil:
		return nil, fmt.Errorf("both %s and Not%s", name, name)
	case plain == nil && not == nil:
		return nil, fmt.Errorf("neither %s nor Not%s", name, name)
	case plain != nil:
		if len(plain) == 0 {
			return nil, fmt.Errorf("an empty %s", name)
		}
		return plain, nil
	}
	return not, nil
}

func parseCondition(op, key string, values []string) (condition, error) {
	c := condition{key: strings.ToLower(key), values: values}
	base := op
	if rest, ok := strings.CutPrefix(base, "ForAllValues:"); ok {
		base, c.forAll = rest, true
	} else if rest, ok := strings.CutPrefix(base, "ForAnyValue:"); ok {
		base, c.forAny = rest, true
	}
	if rest, ok := strings.CutSuffix(base, "IfExists"); ok && rest != "Null" {
		base, c.ifExists = rest, true
	}
	if _, ok := operators()[base]; !ok {
		return condition{}, fmt.Errorf("condition operator %q is not implemented", op)
	}
	if len(values) == 0 {
		return condition{}, fmt.Errorf("condition %s %s: no value", op, key)
	}
	if err := noVariable("condition key", key); err != nil {
		return condition{}, err
	}
	c.operator = base
	for _, v := range values {
		if err := noVariable("condition value", v); err != nil {
			return condition{}, err
		}
		switch base {
		case "Bool", "Null":
			if v != "true" && v != "false" {
				return condition{}, fmt.Errorf("condition %s %s: value %q: want true or false", op, key, v)
			}
		case "StringLike", "StringNotLike":
			c.patterns = append(c.patterns, globPattern(v, false))
		}
	}
	return c, nil
}

// noVariable refuses a value with a policy variable (${aws:username}) or an unrendered
// placeholder (${AWS_REGION}): the evaluator would compare it as written.
func noVariable(what, v string) error {
	if strings.Contains(v, "${") {
		return fmt.Errorf("%s %q: policy variables and placeholders are not implemented (render the document first)", what, v)
	}
	return nil
}

// strictDecode decodes one JSON value, refusing unknown fields (a Principal, a misspelt
// element) so that nothing in the document is silently ignored.
func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the document")
	}
	return nil
}

// conditionValues is a condition's value: a string, boolean or number, or a list of them.
type conditionValues []string

func (c *conditionValues) UnmarshalJSON(data []byte) error {
	var many []json.RawMessage
	if err := json.Unmarshal(data, &many); err != nil {
		many = []json.RawMessage{data}
	}
	out := make([]string, 0, len(many))
	for _, raw := range many {
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			out = append(out, s)
			continue
		}
		var scalar any
		if err := json.Unmarshal(raw, &scalar); err != nil {
			return err
		}
		switch scalar.(type) {
		case bool, float64:
			out = append(out, strings.TrimSpace(string(raw)))
		default:
			return fmt.Errorf("condition value %s: want a string, boolean or number", raw)
		}
	}
	*c = out
	return nil
}

// globPattern compiles an action or a StringLike value: * is any run of characters, ? any one.
func globPattern(p string, foldCase bool) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?s)")
	if foldCase {
		b.WriteString("(?i)")
	}
	b.WriteString("^")
	for _, r := range p {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// arnPattern compiles a Resource pattern with IAM's ARN rules: wildcards stay within the
// colon-separated segment they are in, except that a * ending a segment may run past its end
// (and any wildcard of the resource segment, the sixth, may match colons: a resource id may
// hold them).
func arnPattern(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?s)^")
	segment := 0
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '*' && (segment >= 5 || i == len(p)-1 || p[i+1] == ':'):
			b.WriteString(".*")
		case c == '*':
			b.WriteString("[^:]*")
		case c == '?' && segment >= 5:
			b.WriteString(".")
		case c == '?':
			b.WriteString("[^:]")
		default:
			if c == ':' {
				segment++
			}
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// Evaluate decides a request.
func (ev *Evaluator) Evaluate(r Request) Decision {
	ctx := make(map[string][]string, len(r.Context))
	for k, v := range r.Context {
		if len(v) > 0 {
			ctx[strings.ToLower(k)] = append(ctx[strings.ToLower(k)], v...)
		}
	}
	resources := r.Resources
	if len(resources) == 0 {
		resources = []string{"*"}
	}
	out := Decision{Allowed: true}
	for _, res := range resources {
		allowedBy, deniedBy, denied := ev.decide(r.Action, res, ctx)
		switch {
		case denied:
			return Decision{Denied: true, Resource: res, Statement: deniedBy}
		case allowedBy == nil && out.Allowed:
			out = Decision{Resource: res}
		case allowedBy != nil && out.Allowed:
			out.Statement = *allowedBy
		}
	}
	return out
}

// decide evaluates one resource: the Sid of an Allow that matches (nil if none does), or the
// Deny that matches.
func (ev *Evaluator) decide(action, resource string, ctx map[string][]string) (allowedBy *string, deniedBy string, denied bool) {
	for i := range ev.statements {
		s := &ev.statements[i]
		if !s.matches(action, resource, ctx) {
			continue
		}
		if s.deny {
			return nil, s.sid, true
		}
		if allowedBy == nil {
			allowedBy = &s.sid
		}
	}
	return allowedBy, "", false
}

func (s *statement) matches(action, resource string, ctx map[string][]string) bool {
	if anyMatch(s.actions, action) == s.notAction {
		return false
	}
	if anyMatch(s.resources, resource) == s.notResource {
		return false
	}
	for i := range s.conditions {
		if !s.conditions[i].holds(ctx) {
			return false
		}
	}
	return true
}

func anyMatch(patterns []*regexp.Regexp, s string) bool {
	for _, p := range patterns {
		if p.MatchString(s) {
			return true
		}
	}
	return false
}

// holds evaluates the condition against the request's keys, with IAM's rules for a key that
// is absent: false, except for the negated operators, IfExists, Null and ForAllValues (whose
// "every value" holds of no values).
func (c *condition) holds(ctx map[string][]string) bool {
	got, present := ctx[c.key]
	if c.operator == "Null" {
		return present == (c.values[0] == "false")
	}
	negated := operators()[c.operator]
	switch {
	case !present && c.ifExists:
		return true
	case !present && c.forAll:
		return true
	case !present && c.forAny:
		return false
	case !present:
		return negated
	}
	switch {
	case c.forAll:
		for _, v := range got {
			if !c.matchOne(v, negated) {
				return false
			}
		}
		return true
	case c.forAny:
		for _, v := range got {
			if c.matchOne(v, negated) {
				return true
			}
		}
		return false
	case negated:
		// None of the request's values is one the positive operator matches.
		for _, v := range got {
			if !c.matchOne(v, true) {
				return false
			}
		}
		return true
	}
	for _, v := range got {
		if c.matchOne(v, false) {
			return true
		}
	}
	return false
}

// matchOne reports whether one request value satisfies the operator: for a positive operator,
// it matches one of the policy's values; for a negated one, it matches none of them.
func (c *condition) matchOne(v string, negated bool) bool {
	hit := false
	for i, want := range c.values {
		switch c.operator {
		case "StringEquals", "StringNotEquals":
			hit = v == want
		case "StringEqualsIgnoreCase", "StringNotEqualsIgnoreCase", "Bool":
			hit = strings.EqualFold(v, want)
		case "StringLike", "StringNotLike":
			hit = c.patterns[i].MatchString(v)
		}
		if hit {
			break
		}
	}
	return hit != negated
}
