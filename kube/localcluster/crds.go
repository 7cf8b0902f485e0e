package localcluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// crdPollInterval is how often installCRDs checks for the Established condition.
const crdPollInterval = 50 * time.Millisecond

// installCRDs creates (or, if they exist, replaces) crds and waits until each is Established, so a
// client can use their kinds as soon as Start returns.
func installCRDs(ctx context.Context, cfg *rest.Config, crds []*apiextensionsv1.CustomResourceDefinition) error {
	if len(crds) == 0 {
		return nil
	}
	client, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("localcluster: apiextensions client: %w", err)
	}
	api := client.CustomResourceDefinitions()
	for _, crd := range crds {
		if err := applyCRD(ctx, api, crd); err != nil {
			return err
		}
	}
	for _, crd := range crds {
		if err := waitEstablished(ctx, api, crd.Name); err != nil {
			return err
		}
	}
	return nil
}

// applyCRD creates crd, or replaces the one of the same name.
func applyCRD(ctx context.Context, api apiextensionsclient.CustomResourceDefinitionInterface, crd *apiextensionsv1.CustomResourceDefinition) error {
	want := crd.DeepCopy()
	want.ResourceVersion = ""
	_, err := api.Create(ctx, want, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		var have *apiextensionsv1.CustomResourceDefinition
		have, err = api.Get(ctx, crd.Name, metav1.GetOptions{})
		if err == nil {
			want.ResourceVersion = have.ResourceVersion
			_, err = api.Update(ctx, want, metav1.UpdateOptions{})
		}
	}
	if err != nil {
		return fmt.Errorf("localcluster: install crd %q: %w", crd.Name, err)
	}
	return nil
}

// waitEstablished polls the CRD called name until its Established condition is True. It fails early
// if the API server rejected its names.
func waitEstablished(ctx context.Context, api apiextensionsclient.CustomResourceDefinitionInterface, name string) error {
	ticker := time.NewTicker(crdPollInterval)
	defer ticker.Stop()
	for {
		crd, err := api.Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			for _, cond := range crd.Status.Conditions {
				switch {
				case cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue:
					return nil
				case cond.Type == apiextensionsv1.NamesAccepted && cond.Status == apiextensionsv1.ConditionFalse:
					return fmt.Errorf("localcluster: crd %q: names not accepted: %s", name, cond.Message)
				}
			}
			err = errors.New("not Established yet")
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("localcluster: crd %q: %w (last: %v)", name, ctx.Err(), err)
		case <-ticker.C:
		}
	}
}
