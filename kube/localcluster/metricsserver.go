package localcluster

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	aggregator "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	"k8s.io/utils/ptr"
)

// metricsAPIService is the APIService that routes metrics.k8s.io to metrics-server.
const metricsAPIService = "v1beta1.metrics.k8s.io"

// registerMetricsServer makes metrics-server, listening on loopback port, the cluster's
// metrics.k8s.io, as its release manifest does (a Service in kube-system and an APIService),
// except that the Service is an ExternalName of localhost: there is no pod behind it. It returns
// once the aggregator reports the APIService Available.
func registerMetricsServer(ctx context.Context, cfg *rest.Config, port int) error {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("localcluster: metrics-server: %w", err)
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: metricsServerName, Namespace: metav1.NamespaceSystem},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost",
			Ports: []corev1.ServicePort{{Name: "https", Port: int32(port)}}},
	}
	if _, err := client.CoreV1().Services(svc.Namespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("localcluster: metrics-server service: %w", err)
	}
	agg, err := aggregator.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("localcluster: metrics-server: %w", err)
	}
	apis := agg.ApiregistrationV1().APIServices()
	// metrics-server's certificate is its own self-signed one, as in its release manifest.
	api := &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: metricsAPIService},
		Spec: apiregistrationv1.APIServiceSpec{Group: "metrics.k8s.io", Version: "v1beta1", InsecureSkipTLSVerify: true,
			GroupPriorityMinimum: 100, VersionPriority: 100,
			Service: &apiregistrationv1.ServiceReference{Namespace: svc.Namespace, Name: svc.Name, Port: ptr.To(int32(port))}},
	}
	if _, err := apis.Create(ctx, api, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("localcluster: metrics-server apiservice: %w", err)
	}
	for {
		got, err := apis.Get(ctx, metricsAPIService, metav1.GetOptions{})
		if err == nil && helper.IsAPIServiceConditionTrue(got, apiregistrationv1.Available) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("localcluster: apiservice %s not Available (see metrics-server.log): %w", metricsAPIService, ctx.Err())
		case <-time.After(readyPollInterval):
		}
	}
}
