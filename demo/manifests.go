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

// applyWorkloads creates the Deployments, DaemonSets, PodDisruptionBudgets, Pods and
// HorizontalPodAutoscalers of one file (in the default namespace unless they name one), and
// adds its Deployments and ScaledObjects to out.
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
			var d appsv1.Deployment
			if err := yaml.UnmarshalStrict(doc, &d); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			out.deployments = append(out.deployments, namespace(d.Namespace)+"/"+d.Name)
			_, err = c.Kube.AppsV1().Deployments(namespace(d.Namespace)).Create(ctx, &d, metav1.CreateOptions{})
		case "DaemonSet":
			var ds appsv1.DaemonSet
			if err := yaml.UnmarshalStrict(doc, &ds); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			_, err = c.Kube.AppsV1().DaemonSets(namespace(ds.Namespace)).Create(ctx, &ds, metav1.CreateOptions{})
		case "PodDisruptionBudget":
			var pdb policyv1.PodDisruptionBudget
			if err := yaml.UnmarshalStrict(doc, &pdb); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			_, err = c.Kube.PolicyV1().PodDisruptionBudgets(namespace(pdb.Namespace)).Create(ctx, &pdb, metav1.CreateOptions{})
		case "Pod":
			var p corev1.Pod
			if err := yaml.UnmarshalStrict(doc, &p); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			_, err = c.Kube.CoreV1().Pods(namespace(p.Namespace)).Create(ctx, &p, metav1.CreateOptions{})
		case "PersistentVolume":
			var pv corev1.PersistentVolume
			if err := yaml.UnmarshalStrict(doc, &pv); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			_, err = c.Kube.CoreV1().PersistentVolumes().Create(ctx, &pv, metav1.CreateOptions{})
		case "PersistentVolumeClaim":
			var pvc corev1.PersistentVolumeClaim
			if err := yaml.UnmarshalStrict(doc, &pvc); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			_, err = c.Kube.CoreV1().PersistentVolumeClaims(namespace(pvc.Namespace)).Create(ctx, &pvc, metav1.CreateOptions{})
		case "HorizontalPodAutoscaler":
			var hpa autoscalingv2.HorizontalPodAutoscaler
			if err := yaml.UnmarshalStrict(doc, &hpa); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			_, err = c.Kube.AutoscalingV2().HorizontalPodAutoscalers(namespace(hpa.Namespace)).Create(ctx, &hpa, metav1.CreateOptions{})
		case "ScaledObject":
			var so manifest.ScaledObject
			if err := yaml.UnmarshalStrict(doc, &so); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			cs, err := newCronScaler(&so)
			if err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			out.cron = append(out.cron, cs)
			continue
		default:
			continue
		}
		if ignoreExists(err) != nil {
			return fmt.Errorf("%s: creating %s: %w", file, strings.ToLower(meta.Kind), err)
		}
	}
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
