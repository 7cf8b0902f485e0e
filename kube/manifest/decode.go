package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/nodepilot/nodepilot/suggest"
)

// header is the part of a document that says what it is.
type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
}

// longExponent matches a decimal exponent of four digits or more, the only kind
// quantity.CheckExponent can refuse.
var longExponent = regexp.MustCompile(`[0-9.][eE][+-]?[0-9]{4,}`)

// readHeader reads what a document says it is. A metadata of the wrong shape is left for the
// object's own decoding to report, with its field path.
func readHeader(data []byte) (header, error) {
	var h header
	var fields struct {
		APIVersion json.RawMessage `json:"apiVersion"`
		Kind       json.RawMessage `json:"kind"`
		Metadata   json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(data, &fields); err != nil {
		return h, fmt.Errorf("a manifest must be an object with apiVersion and kind")
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"apiVersion", fields.APIVersion}, {"kind", fields.Kind}} {
		if f.raw != nil && json.Unmarshal(f.raw, new(string)) != nil {
			return h, fmt.Errorf("%s: Invalid value: %s: must be a string", f.name, f.raw)
		}
	}
	_ = json.Unmarshal(fields.APIVersion, &h.APIVersion)
	_ = json.Unmarshal(fields.Kind, &h.Kind)
	_ = json.Unmarshal(fields.Metadata, &h.Metadata)
	return h, nil
}

// decodeFile decodes the documents of one file into a Set, with the file's problems.
func decodeFile(file string, data []byte, state *loadState) (*Set, []error) {
	set := &Set{}
	errs := &fileErrors{file: file}
	for _, doc := range splitDocuments(data) {
		decodeDocument(set, errs, file, doc, state)
	}
	return set, errs.list()
}

func decodeDocument(set *Set, errs *fileErrors, file string, doc document, state *loadState) {
	data, err := yaml.YAMLToJSONStrict(doc.data)
	if err != nil {
		errs.add(doc.number, "", fileLines(err, doc.line))
		return
	}
	decodeObject(set, errs, file, doc.number, "", data, state)
}

// decodeObject decodes one object of document number: the document itself, or the item (say
// items[3]) of a List it holds, whose messages name the item before the object.
func decodeObject(set *Set, errs *fileErrors, file string, number int, item string, data []byte, state *loadState) {
	h, err := readHeader(data)
	if err != nil {
		errs.add(number, item, err)
		return
	}
	switch {
	case h.APIVersion == "" && h.Kind == "":
		errs.add(number, item, fmt.Errorf("apiVersion and kind are missing"))
		return
	case h.APIVersion == "":
		errs.add(number, item, fmt.Errorf("apiVersion is missing (kind %s)", h.Kind))
		return
	case h.Kind == "":
		errs.add(number, item, fmt.Errorf("kind is missing (apiVersion %s)", h.APIVersion))
		return
	}
	object := within(item, objectName(h.Kind, h.Metadata.Namespace, h.Metadata.Name))
	if isList(h.Kind) {
		if item != "" {
			errs.add(number, object, fmt.Errorf("a %s inside a List is not expanded; put its items in the outer list", h.Kind))
			return
		}
		decodeList(set, errs, file, number, h, data, state)
		return
	}
	k, known := lookupHandler(h.APIVersion, h.Kind)
	if !known {
		if version, ok := supportedVersion(h.Kind); ok {
			errs.add(number, object, fmt.Errorf("apiVersion %s is not supported for %s; use %s", h.APIVersion, h.Kind, version))
			return
		}
		if err := unknownKarpenterKind(h.APIVersion, h.Kind); err != nil {
			errs.add(number, object, err)
			return
		}
		set.Notes = append(set.Notes, fmt.Sprintf("%s: document %d: %s (not used by planning)", file, number,
			within(item, fmt.Sprintf("skipped %s %s %q", h.APIVersion, h.Kind, h.Metadata.Name))))
		return
	}
	obj := k.newObject()
	// Built-in groups (apps, batch, policy, the core group) have no dot; custom resources' do.
	group, _, _ := strings.Cut(h.APIVersion, "/")
	crd := strings.Contains(group, ".")
	// A long exponent anywhere may be a quantity's that would take minutes to parse: find the
	// field at fault before decoding. Documents without one (nearly all) skip the walk.
	if longExponent.Match(data) {
		if fe, ok := valueError(data, obj, crd); ok {
			errs.add(number, object, fe)
			return
		}
	}
	strictErrs, err := kjson.UnmarshalStrict(data, obj)
	if err != nil {
		if fe, ok := valueError(data, obj, crd); ok {
			errs.add(number, object, fe)
		} else {
			errs.add(number, object, fmt.Errorf("decoding: %w", err))
		}
		return
	}
	for _, e := range strictErrs {
		errs.add(number, object, e)
	}
	if len(strictErrs) > 0 {
		return
	}
	ctx := &addContext{set: set, errs: errs, file: file, document: number, object: object, state: state, raw: data}
	k.add(ctx, obj)
}

// isList tells a list kind (List, as kubectl get -o yaml writes, or a typed PodList, NodePoolList).
func isList(kind string) bool { return strings.HasSuffix(kind, "List") }

// decodeList decodes each item of a list. A typed list's items may leave out their apiVersion
// and kind, which are the list's (a PodList's items are v1 Pods).
func decodeList(set *Set, errs *fileErrors, file string, number int, h header, data []byte, state *loadState) {
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		errs.add(number, objectName(h.Kind, "", h.Metadata.Name), fmt.Errorf("items: must be a list of objects"))
		return
	}
	itemKind := strings.TrimSuffix(h.Kind, "List")
	for i, raw := range list.Items {
		if itemKind != "" {
			raw = withDefaultTypeMeta(raw, h.APIVersion, itemKind)
		}
		decodeObject(set, errs, file, number, fmt.Sprintf("items[%d]", i), raw, state)
	}
}

// withDefaultTypeMeta sets apiVersion and kind on an item of a typed list that leaves them out.
func withDefaultTypeMeta(raw json.RawMessage, apiVersion, kind string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return raw // decodeObject reports it is not an object
	}
	changed := false
	for key, value := range map[string]string{"apiVersion": apiVersion, "kind": kind} {
		if _, ok := obj[key]; !ok {
			obj[key], _ = json.Marshal(value)
			changed = true
		}
	}
	if !changed {
		return raw
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return raw
	}
	return out
}

// within names object as an item of a list ("items[3]: Pod "web"") when item is set.
func within(item, object string) string {
	switch {
	case item == "":
		return object
	case object == "":
		return item
	}
	return item + ": " + object
}

// karpenterKinds are the kinds of Karpenter's API groups, in every version Karpenter v1.14 serves.
var karpenterKinds = map[string][]string{
	"karpenter.sh":      {"NodeClaim", "NodeOverlay", "NodePool"},
	"karpenter.k8s.aws": {"EC2NodeClass"},
}

// unknownKarpenterKind refuses a kind Karpenter's API groups do not have (a typo of NodePool,
// say): skipping it as a kind planning does not use would silently plan without it.
func unknownKarpenterKind(apiVersion, kind string) error {
	group, _, _ := strings.Cut(apiVersion, "/")
	kinds, ok := karpenterKinds[group]
	if !ok || slices.Contains(kinds, kind) {
		return nil
	}
	if near, ok := suggest.Nearest(kind, kinds); ok {
		return fmt.Errorf("kind %s is not a kind of %s: did you mean %s?", kind, group, near)
	}
	return fmt.Errorf("kind %s is not a kind of %s (its kinds: %s)", kind, group, strings.Join(kinds, ", "))
}

// fileLines rewrites the document line of a YAML error into a file line, and drops the
// converter's prefix.
func fileLines(err error, firstLine int) error {
	msg := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
	m := regexp.MustCompile(`yaml: (?:unmarshal errors:\s*)?line (\d+)`).FindStringSubmatchIndex(msg)
	if m == nil {
		return errors.New(msg)
	}
	line, convErr := strconv.Atoi(msg[m[2]:m[3]])
	if convErr != nil {
		return errors.New(msg)
	}
	return errors.New(msg[:m[2]] + strconv.Itoa(line+firstLine-1) + msg[m[3]:])
}
