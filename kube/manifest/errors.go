package manifest

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxErrorsPerFile bounds how many problems of one file are reported.
const maxErrorsPerFile = 50

// Error is one problem in a manifest file.
type Error struct {
	// File is the path of the file.
	File string
	// Document is the 1-based number of the YAML document in the file, or 0 for the file.
	Document int
	// Object names the object, such as `NodePool "spot-batch"`, or is empty when unknown.
	Object string
	// Err says what is wrong.
	Err error
}

// Error returns "file: document N: Kind "name": problem".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Document > 0 {
		fmt.Fprintf(&b, ": document %d", e.Document)
	}
	if e.Object != "" {
		b.WriteString(": " + e.Object)
	}
	return b.String() + ": " + e.Err.Error()
}

// Unwrap returns the underlying problem.
func (e *Error) Unwrap() error { return e.Err }

// fieldMessage renders a validation error as "path: what is allowed".
func fieldMessage(e *field.Error) string {
	if e.Detail != "" {
		return e.Field + ": " + e.Detail
	}
	return e.Field + ": " + e.ErrorBody()
}

// objectName returns `Kind "name"` or `Kind "namespace/name"`.
func objectName(kind, namespace, name string) string {
	if namespace != "" {
		name = namespace + "/" + name
	}
	return fmt.Sprintf("%s %q", kind, name)
}

// fileErrors collects the problems of one file, up to maxErrorsPerFile.
type fileErrors struct {
	file    string
	errs    []error
	dropped int
}

func (f *fileErrors) add(document int, object string, err error) {
	if len(f.errs) >= maxErrorsPerFile {
		f.dropped++
		return
	}
	f.errs = append(f.errs, &Error{File: f.file, Document: document, Object: object, Err: err})
}

func (f *fileErrors) addField(document int, object string, errs field.ErrorList) {
	for _, e := range errs {
		f.add(document, object, fmt.Errorf("%s", fieldMessage(e)))
	}
}

// list returns the problems, with a last one counting those left out.
func (f *fileErrors) list() []error {
	if f.dropped == 0 {
		return f.errs
	}
	return append(f.errs, &Error{File: f.file, Err: fmt.Errorf("%d more problems not shown", f.dropped)})
}
