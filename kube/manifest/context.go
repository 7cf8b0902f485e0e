package manifest

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxPods bounds the pods a Load expands workloads into.
const maxPods = 100000

// loadState is what one Load shares across files: where each object was first defined, and how
// many pods were made.
type loadState struct {
	origins map[string]string
	pods    int
}

func newLoadState() *loadState {
	return &loadState{origins: map[string]string{}}
}

// addContext is the document an object is being added from.
type addContext struct {
	set      *Set
	errs     *fileErrors
	state    *loadState
	file     string
	document int
	object   string
	// raw is the object as written, for what decoding into the type cannot tell (a field left
	// out or set to its zero value).
	raw []byte
}

// fail reports validation errors of the object; it returns true when there were any.
func (c *addContext) fail(errs field.ErrorList) bool {
	c.errs.addField(c.document, c.object, errs)
	return len(errs) > 0
}

// failAsAPIServer reports errors in the API server's own words (path: Invalid value: "v": why);
// it returns true when there were any.
func (c *addContext) failAsAPIServer(errs field.ErrorList) bool {
	for _, e := range errs {
		c.errs.add(c.document, c.object, e)
	}
	return len(errs) > 0
}

// claim records kind/namespace/name as defined here; it reports false (and an error) when the
// name was already defined.
func (c *addContext) claim(kind, namespace, name string) bool {
	key := kind + " " + namespace + "/" + name
	here := fmt.Sprintf("%s document %d", c.file, c.document)
	if first, ok := c.state.origins[key]; ok {
		c.errs.add(c.document, objectName(kind, namespace, name), fmt.Errorf("duplicate name: %s %q is already defined in %s", kind, name, first))
		return false
	}
	c.state.origins[key] = here
	return true
}

// note records something skipped or assumed about the object.
func (c *addContext) note(format string, args ...interface{}) {
	c.set.Notes = append(c.set.Notes, fmt.Sprintf("%s: %s: %s", c.at(), c.object, fmt.Sprintf(format, args...)))
}

// at is where the object is: its file and document.
func (c *addContext) at() string { return fmt.Sprintf("%s: document %d", c.file, c.document) }
