package render

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// YAML is an object as YAML (sigs.k8s.io/yaml, as kubectl prints it, without managedFields),
// colored key, colon and value.
func YAML(obj any) (Text, error) {
	b, err := yaml.Marshal(withType(obj))
	if err != nil {
		return nil, fmt.Errorf("yaml of %T: %w", obj, err)
	}
	return colorYAML(string(b)), nil
}

// withType returns a copy of a Kubernetes object with its apiVersion and kind set (informers
// leave them empty) and its managedFields dropped.
func withType(obj any) any {
	set := func(m *metav1.ObjectMeta, t *metav1.TypeMeta, apiVersion, kind string) {
		m.ManagedFields = nil
		t.APIVersion, t.Kind = apiVersion, kind
	}
	switch o := obj.(type) {
	case *corev1.Pod:
		c := o.DeepCopy()
		set(&c.ObjectMeta, &c.TypeMeta, "v1", "Pod")
		return c
	case *corev1.Node:
		c := o.DeepCopy()
		set(&c.ObjectMeta, &c.TypeMeta, "v1", "Node")
		return c
	case *karpv1.NodePool:
		c := o.DeepCopy()
		set(&c.ObjectMeta, &c.TypeMeta, karpv1.SchemeGroupVersion.String(), "NodePool")
		return c
	case *karpv1.NodeClaim:
		c := o.DeepCopy()
		set(&c.ObjectMeta, &c.TypeMeta, karpv1.SchemeGroupVersion.String(), "NodeClaim")
		return c
	}
	return obj
}

func colorYAML(s string) Text {
	var w Writer
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		body := strings.TrimLeft(line, " ")
		w.Add(line[:len(line)-len(body)], ToneInherit)
		if rest, ok := strings.CutPrefix(body, "- "); ok {
			w.Add("- ", ToneColon)
			body = rest
		}
		key, value, found := strings.Cut(body, ":")
		if !found || strings.ContainsAny(key, " \"'") || (value != "" && value[0] != ' ') {
			w.Add(body, ToneValue).End()
			continue
		}
		w.Add(key, ToneKey).Add(":", ToneColon).Add(value, ToneValue).End()
	}
	return w.Text()
}
