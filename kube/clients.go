package kube

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// Client rate limits used when the configuration sets none: client-go's defaults (5 QPS, burst
// 10) would make a drain of a hundred pods take twenty seconds. Karpenter uses the same figures.
const (
	DefaultQPS   = 200
	DefaultBurst = 300
)

// userAgent identifies nodepilot in the API server's logs and audit events.
const userAgent = "nodepilot"

// Clients are the API clients nodepilot uses: the built-in kinds through client-go's clientset
// (protobuf on the wire), and the Karpenter kinds through typed REST clients (JSON, as for every
// custom resource).
type Clients struct {
	// Kube is client-go's clientset for the built-in kinds.
	Kube kubernetes.Interface
	// NodePools reaches karpenter.sh/v1 NodePools.
	NodePools Resource[*karpv1.NodePool]
	// NodeClaims reaches karpenter.sh/v1 NodeClaims.
	NodeClaims Resource[*karpv1.NodeClaim]
	// NodeClasses reaches karpenter.k8s.aws/v1 EC2NodeClasses.
	NodeClasses Resource[*awsv1.EC2NodeClass]
	// Scheme knows the built-in kinds and the Karpenter ones.
	Scheme *runtime.Scheme
}

// NewClients builds the clients of the cluster cfg points at. cfg is not changed; a copy gets
// DefaultQPS and DefaultBurst if it has no rate limits of its own.
func NewClients(cfg *rest.Config) (*Clients, error) {
	base := rest.CopyConfig(cfg)
	if base.QPS == 0 && base.Burst == 0 && base.RateLimiter == nil {
		base.QPS, base.Burst = DefaultQPS, DefaultBurst
	}
	if base.UserAgent == "" {
		base.UserAgent = userAgent
	}
	scheme, err := NewScheme()
	if err != nil {
		return nil, err
	}

	protobuf := rest.CopyConfig(base)
	protobuf.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	protobuf.ContentType = "application/vnd.kubernetes.protobuf"
	kube, err := kubernetes.NewForConfig(protobuf)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client for %s: %w", cfg.Host, err)
	}
	karpenter, err := crdClient(base, scheme, karpv1.SchemeGroupVersion)
	if err != nil {
		return nil, err
	}
	aws, err := crdClient(base, scheme, awsv1.SchemeGroupVersion)
	if err != nil {
		return nil, err
	}
	return &Clients{
		Kube:        kube,
		NodePools:   newResource(karpenter, "nodepools", "nodepool", func() *karpv1.NodePool { return &karpv1.NodePool{} }),
		NodeClaims:  newResource(karpenter, "nodeclaims", "nodeclaim", func() *karpv1.NodeClaim { return &karpv1.NodeClaim{} }),
		NodeClasses: newResource(aws, "ec2nodeclasses", "ec2nodeclass", func() *awsv1.EC2NodeClass { return &awsv1.EC2NodeClass{} }),
		Scheme:      scheme,
	}, nil
}

// crdClient returns a REST client of the custom resources of gv, decoding into scheme's types.
// Objects are decoded as they are sent: there is a single version, so nothing to convert.
func crdClient(base *rest.Config, scheme *runtime.Scheme, gv schema.GroupVersion) (*rest.RESTClient, error) {
	cfg := rest.CopyConfig(base)
	cfg.APIPath = "/apis"
	cfg.GroupVersion = &gv
	cfg.ContentType = runtime.ContentTypeJSON
	cfg.AcceptContentTypes = runtime.ContentTypeJSON
	cfg.NegotiatedSerializer = serializer.WithoutConversionCodecFactory{CodecFactory: serializer.NewCodecFactory(scheme)}
	client, err := rest.RESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s client for %s: %w", gv, cfg.Host, err)
	}
	return client, nil
}
