package demo

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/nodepilot/nodepilot/kube"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
	"github.com/nodepilot/nodepilot/kube/manifest"
)

//go:embed manifests/*.yaml
var manifestFiles embed.FS

// discoveryKey is the tag EC2NodeClasses select subnets and security groups by.
const discoveryKey = "karpenter.sh/discovery"

// applied is what apply created that the demo drives: the Deployments ("namespace/name"), and
// the ScaledObjects it plays (KEDA does not run here).
type applied struct {
	deployments []string
	cron        []*cronScaler
}

// apply creates the objects of manifests' *.yaml files: NodePools and EC2NodeClasses (validated
// and defaulted as the plan command loads them, their discovery tags pointed at clusterName),
// then Deployments, DaemonSets, PodDisruptionBudgets, Pods and HorizontalPodAutoscalers, and
// reads the ScaledObjects. Objects that exist already are left as they are.
func apply(ctx context.Context, c *kube.Clients, clusterName string, manifests fs.FS) (applied, error) {
	var out applied
	entries, err := fs.Glob(manifests, "*.yaml")
	if err != nil {
		return out, err
	}
	if len(entries) == 0 {
		return out, errors.New("demo manifests: no *.yaml file")
	}
	for _, name := range entries {
		data, err := fs.ReadFile(manifests, name)
		if err != nil {
			return out, err
		}
		set, err := manifest.Decode(path.Base(name), data)
		if err != nil {
			return out, fmt.Errorf("demo manifests: %w", err)
		}
		for _, nc := range set.EC2NodeClasses {
			pointAt(nc, clusterName)
			nc.Status = awsv1.EC2NodeClassStatus{}
			if _, err := c.NodeClasses.Create(ctx, nc); ignoreExists(err) != nil {
				return out, fmt.Errorf("%s: creating ec2nodeclass %s: %w", name, nc.Name, err)
			}
		}
		for _, np := range set.NodePools {
			if _, err := c.NodePools.Create(ctx, np); ignoreExists(err) != nil {
				return out, fmt.Errorf("%s: creating nodepool %s: %w", name, np.Name, err)
			}
		}
		if err := applyWorkloads(ctx, c, name, data, &out); err != nil {
			return out, err
		}
	}
	return out, nil
}

// pointAt makes an EC2NodeClass select what the emulator tags: its discovery tag's value becomes
// the cluster's name (the seeds use two names, my-cluster and my-eks).
func pointAt(nc *awsv1.EC2NodeClass, clusterName string) {
	for i := range nc.Spec.SubnetSelectorTerms {
		if _, ok := nc.Spec.SubnetSelectorTerms[i].Tags[discoveryKey]; ok {
			nc.Spec.SubnetSelectorTerms[i].Tags[discoveryKey] = clusterName
		}
	}
	for i := range nc.Spec.SecurityGroupSelectorTerms {
		if _, ok := nc.Spec.SecurityGroupSelectorTerms[i].Tags[discoveryKey]; ok {
			nc.Spec.SecurityGroupSelectorTerms[i].Tags[discoveryKey] = clusterName
		}
	}
}

// applyWorkloads creates the Deployments, DaemonSets, PodDisruptionBudgets, Pods,
// PersistentVolumes and their claims and HorizontalPodAutoscalers of one file (in the default
// namespace unless they name one), adds its Deployments and ScaledObjects to out, and skips other
// kinds.
func applyWorkloads(ctx context.Context, c *kube.Clients, file string, data []byte, out *applied) error {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		switch meta.Kind {
		case "Deployment":
			var d *appsv1.Deployment
			if d, err = create(ctx, doc, meta.Kind, func(ns string) creator[*appsv1.Deployment] { return c.Kube.AppsV1().Deployments(ns).Create }); err == nil {
				out.deployments = append(out.deployments, namespace(d.Namespace)+"/"+d.Name)
			}
		case "DaemonSet":
			_, err = create(ctx, doc, meta.Kind, func(ns string) creator[*appsv1.DaemonSet] { return c.Kube.AppsV1().DaemonSets(ns).Create })
		case "PodDisruptionBudget":
			_, err = create(ctx, doc, meta.Kind, func(ns string) creator[*policyv1.PodDisruptionBudget] {
				return c.Kube.PolicyV1().PodDisruptionBudgets(ns).Create
			})
		case "Pod":
			_, err = create(ctx, doc, meta.Kind, func(ns string) creator[*corev1.Pod] { return c.Kube.CoreV1().Pods(ns).Create })
		case "PersistentVolume": // cluster-scoped
			_, err = create(ctx, doc, meta.Kind, func(string) creator[*corev1.PersistentVolume] { return c.Kube.CoreV1().PersistentVolumes().Create })
		case "PersistentVolumeClaim":
			_, err = create(ctx, doc, meta.Kind, func(ns string) creator[*corev1.PersistentVolumeClaim] {
				return c.Kube.CoreV1().PersistentVolumeClaims(ns).Create
			})
		case "HorizontalPodAutoscaler":
			_, err = create(ctx, doc, meta.Kind, func(ns string) creator[*autoscalingv2.HorizontalPodAutoscaler] {
				return c.Kube.AutoscalingV2().HorizontalPodAutoscalers(ns).Create
			})
		case "ScaledObject":
			var so manifest.ScaledObject
			if err = yaml.UnmarshalStrict(doc, &so); err == nil {
				var cs *cronScaler
				if cs, err = newCronScaler(&so); err == nil {
					out.cron = append(out.cron, cs)
				}
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
	}
}

// creator is a typed client's Create.
type creator[P any] func(context.Context, P, metav1.CreateOptions) (P, error)

// create decodes a document strictly and creates the object through the client of its namespace
// (the default one when it names none); an object that exists already is left as it is.
func create[T any, P interface {
	*T
	metav1.Object
}](ctx context.Context, doc []byte, kind string, client func(namespace string) creator[P]) (P, error) {
	obj := P(new(T))
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		return nil, err
	}
	if _, err := client(namespace(obj.GetNamespace()))(ctx, obj, metav1.CreateOptions{}); ignoreExists(err) != nil {
		return nil, fmt.Errorf("creating %s: %w", strings.ToLower(kind), err)
	}
	return obj, nil
}

func namespace(ns string) string {
	if ns == "" {
		return metav1.NamespaceDefault
	}
	return ns
}

func ignoreExists(err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
