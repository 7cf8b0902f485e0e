package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
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
	var h header
	if err := json.Unmarshal(data, &h); err != nil {
		errs.add(doc.number, "", fmt.Errorf("a manifest must be an object with apiVersion and kind"))
		return
	}
	switch {
	case h.APIVersion == "" && h.Kind == "":
		errs.add(doc.number, "", fmt.Errorf("apiVersion and kind are missing"))
		return
	case h.APIVersion == "":
		errs.add(doc.number, "", fmt.Errorf("apiVersion is missing (kind %s)", h.Kind))
		return
	case h.Kind == "":
		errs.add(doc.number, "", fmt.Errorf("kind is missing (apiVersion %s)", h.APIVersion))
		return
	}
	k, known := lookupHandler(h.APIVersion, h.Kind)
	object := objectName(h.Kind, h.Metadata.Namespace, h.Metadata.Name)
	if !known {
		if version, ok := supportedVersion(h.Kind); ok {
			errs.add(doc.number, object, fmt.Errorf("apiVersion %s is not supported for %s; use %s", h.APIVersion, h.Kind, version))
			return
		}
		set.Notes = append(set.Notes, fmt.Sprintf("%s: document %d: skipped %s %s %q (not used by planning)", file, doc.number, h.APIVersion, h.Kind, h.Metadata.Name))
		return
	}
	obj := k.newObject()
	strictErrs, err := kjson.UnmarshalStrict(data, obj)
	if err != nil {
		errs.add(doc.number, object, fmt.Errorf("decoding: %w", err))
		return
	}
	for _, e := range strictErrs {
		errs.add(doc.number, object, e)
	}
	if len(strictErrs) > 0 {
		return
	}
	ctx := &addContext{set: set, errs: errs, file: file, document: doc.number, object: object, state: state}
	k.add(ctx, obj)
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
