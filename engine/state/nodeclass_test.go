package state

import (
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// otherClass is another cloud provider's node class.
type otherClass struct {
	metav1.TypeMeta
	metav1.ObjectMeta
}

func (o *otherClass) DeepCopyObject() runtime.Object       { c := *o; return &c }
func (o *otherClass) StatusConditions() []metav1.Condition { return nil }

func TestAsNodeClass(t *testing.T) {
	errChange := errors.New("the change's own error")
	for _, tc := range []struct {
		name    string
		class   NodeClass
		err     error // returned by the change
		changed bool
		wantErr string
	}{
		{name: "the provider's type is changed", class: &awsv1.EC2NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, changed: true},
		{name: "the change's error comes back", class: &awsv1.EC2NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, err: errChange,
			changed: true, wantErr: errChange.Error()},
		{name: "another type is an error naming it, not a panic", class: &otherClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}},
			wantErr: `node class "gpu" is a *state.otherClass, not a *v1.EC2NodeClass`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := AsNodeClass(func(nc *awsv1.EC2NodeClass) error {
				nc.Status.InstanceProfile = "changed"
				return tc.err
			})(tc.class)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
			ec2, ok := tc.class.(*awsv1.EC2NodeClass)
			if changed := ok && ec2.Status.InstanceProfile == "changed"; changed != tc.changed {
				t.Errorf("changed = %v, want %v", changed, tc.changed)
			}
		})
	}
}
