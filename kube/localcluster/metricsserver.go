package localcluster

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// metricsAPIService is the APIService that routes metrics.k8s.io to metrics-server.
const metricsAPIService = "v1beta1.metrics.k8s.io"

var apiServices = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

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
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("localcluster: metrics-server: %w", err)
	}
	// metrics-server's certificate is its own self-signed one, as in its release manifest.
	api := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": metricsAPIService},
		"spec": map[string]any{
			"group": "metrics.k8s.io", "version": "v1beta1", "insecureSkipTLSVerify": true,
			"groupPriorityMinimum": int64(100), "versionPriority": int64(100),
			"service": map[string]any{"namespace": metav1.NamespaceSystem, "name": metricsServerName, "port": int64(port)},
		},
	}}
	if _, err := dyn.Resource(apiServices).Create(ctx, api, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("localcluster: metrics-server apiservice: %w", err)
	}
	for {
		got, err := dyn.Resource(apiServices).Get(ctx, metricsAPIService, metav1.GetOptions{})
		if err == nil && available(got) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("localcluster: apiservice %s not Available (see metrics-server.log): %w", metricsAPIService, ctx.Err())
		case <-time.After(readyPollInterval):
		}
	}
}

// available reports whether an APIService's Available condition is True.
func available(api *unstructured.Unstructured) bool {
	conditions, _, _ := unstructured.NestedSlice(api.Object, "status", "conditions")
	for _, c := range conditions {
		if m, ok := c.(map[string]any); ok && m["type"] == "Available" {
			return m["status"] == "True"
		}
	}
	return false
}
