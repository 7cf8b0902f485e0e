package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"github.com/nodepilot/nodepilot/kube/apis/crds"
)

// FieldManager owns the fields nodepilot applies with server-side apply.
const FieldManager = "nodepilot"

// crdPollInterval is how often InstallCRDs checks a CRD's Established condition.
const crdPollInterval = 100 * time.Millisecond

// InstallCRDs creates or updates every CRD of crds.All (NodePool, NodeClaim, EC2NodeClass) with
// server-side apply, taking over fields another manager (kubectl, Helm) set, and waits until each
// is Established, so their kinds can be used when it returns. It needs permission to get and patch
// customresourcedefinitions: an administrator's job, not the controller's (see the chart's
// charts/nodepilot/templates/rbac.yaml).
//
// Unless force is set, it first compares each installed CRD with ours and changes nothing if any
// serves a version or field ours lacks: the cluster runs a newer Karpenter (or nodepilot), and
// replacing its CRDs would make the API server prune those fields from every object it stores.
func InstallCRDs(ctx context.Context, cfg *rest.Config, force bool) error {
	all, err := crds.All()
	if err != nil {
		return err
	}
	client, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("apiextensions client for %s: %w", cfg.Host, err)
	}
	api := client.CustomResourceDefinitions()
	if !force {
		for _, crd := range all {
			if err := refuseNewer(ctx, api, crd); err != nil {
				return err
			}
		}
	}
	for _, crd := range all {
		if err := applyCRD(ctx, api, crd); err != nil {
			return err
		}
	}
	for _, crd := range all {
		if err := waitEstablished(ctx, api, crd.Name); err != nil {
			return err
		}
	}
	return nil
}

// lostFieldsShown is how many lost fields refuseNewer names; the count says how many more.
const lostFieldsShown = 5

// refuseNewer fails if the installed CRD of crd's name serves versions or fields crd lacks.
func refuseNewer(ctx context.Context, api apiextensionsclient.CustomResourceDefinitionInterface, crd *apiextensionsv1.CustomResourceDefinition) error {
	installed, err := api.Get(ctx, crd.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("crd %q: %w", crd.Name, err)
	}
	lost := lostFields(installed, crd)
	if len(lost) == 0 {
		return nil
	}
	shown := strings.Join(lost[:min(len(lost), lostFieldsShown)], ", ")
	if more := len(lost) - lostFieldsShown; more > 0 {
		shown += fmt.Sprintf(" and %d more", more)
	}
	return fmt.Errorf("crd %q installed in the cluster is newer than nodepilot's: replacing it would drop %s, which the API server would then prune from stored objects; nothing was changed (upgrade nodepilot, or pass --force to replace it anyway)", crd.Name, shown)
}

// applyCRD server-side applies crd's metadata and spec (not its status, which the API server owns).
func applyCRD(ctx context.Context, api apiextensionsclient.CustomResourceDefinitionInterface, crd *apiextensionsv1.CustomResourceDefinition) error {
	metadata := map[string]any{"name": crd.Name}
	if len(crd.Labels) > 0 {
		metadata["labels"] = crd.Labels
	}
	if len(crd.Annotations) > 0 {
		metadata["annotations"] = crd.Annotations
	}
	body, err := json.Marshal(map[string]any{
		"apiVersion": apiextensionsv1.SchemeGroupVersion.String(),
		"kind":       "CustomResourceDefinition",
		"metadata":   metadata,
		"spec":       crd.Spec,
	})
	if err != nil {
		return fmt.Errorf("crd %q: encode: %w", crd.Name, err)
	}
	force := true
	_, err = api.Patch(ctx, crd.Name, types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: FieldManager, Force: &force})
	if err != nil {
		return fmt.Errorf("apply crd %q: %w", crd.Name, err)
	}
	return nil
}

// waitEstablished polls the named CRD until it is Established; it fails at once if the API server
// did not accept its names.
func waitEstablished(ctx context.Context, api apiextensionsclient.CustomResourceDefinitionInterface, name string) error {
	var last error
	err := wait.PollUntilContextCancel(ctx, crdPollInterval, true, func(ctx context.Context) (bool, error) {
		crd, err := api.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			last = err
			return false, nil
		}
		for _, cond := range crd.Status.Conditions {
			switch {
			case cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue:
				return true, nil
			case cond.Type == apiextensionsv1.NamesAccepted && cond.Status == apiextensionsv1.ConditionFalse:
				return false, fmt.Errorf("names not accepted: %s", cond.Message)
			}
		}
		last = errors.New("not Established yet")
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("crd %q: %w (last: %v)", name, err, last)
	}
	return nil
}
