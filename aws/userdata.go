package aws

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/mail"
	"net/textproto"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// bootstrap is what a node needs to join the cluster, written into its user data in the format
// of its AMI family.
type bootstrap struct {
	ClusterName string
	Endpoint    string
	// CABundle is the cluster's certificate authority, base64-encoded PEM.
	CABundle    string
	ServiceCIDR string
	Kubelet     *awsv1.KubeletConfiguration
	Labels      map[string]string
	Taints      []corev1.Taint
	// Custom is the EC2NodeClass's spec.userData.
	Custom *string
}

// userData returns the base64 user data of a node of an AMI family: nodeadm's NodeConfig in a
// MIME multi-part document for AL2023 (after the custom parts), bootstrap.sh in a MIME document
// for AL2, TOML settings for Bottlerocket (the custom TOML appended, so it must not repeat the
// [settings.kubernetes] tables), a PowerShell script for Windows, and the custom data alone for
// Custom.
func userData(family string, b bootstrap) (string, error) {
	var text string
	var err error
	switch {
	case family == awsv1.AMIFamilyAL2023:
		text, err = nodeadmUserData(b)
	case family == awsv1.AMIFamilyAL2:
		text, err = mimeUserData(b.Custom, "text/x-shellscript", al2Script(b))
	case family == awsv1.AMIFamilyBottlerocket:
		text = bottlerocketUserData(b)
	case awsv1.IsWindows(family):
		text = windowsUserData(b)
	default:
		if b.Custom != nil {
			text = *b.Custom
		}
	}
	if err != nil {
		return "", fmt.Errorf("user data for AMI family %s: %w", family, err)
	}
	return base64.StdEncoding.EncodeToString([]byte(text)), nil
}

// nodeLabels are the labels the kubelet may set on its own node: the NodeClaim's, without the
// kubernetes.io and k8s.io domains that the NodeRestriction admission plugin reserves (except
// node.kubernetes.io and kubelet.kubernetes.io), sorted by key.
func nodeLabels(labels map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		domain, _, found := strings.Cut(k, "/")
		if found && (isDomain(domain, "kubernetes.io") || isDomain(domain, "k8s.io")) &&
			!isDomain(domain, "node.kubernetes.io") && !isDomain(domain, "kubelet.kubernetes.io") {
			continue
		}
		out = append(out, k+"="+labels[k])
	}
	return out
}

func isDomain(domain, parent string) bool {
	return domain == parent || strings.HasSuffix(domain, "."+parent)
}

// nodeTaints are the taints to register with: the NodeClaim's, and karpenter.sh/unregistered
// until the node is matched to its NodeClaim.
func nodeTaints(taints []corev1.Taint) []string {
	all := append(slices.Clone(taints), karpv1.UnregisteredNoExecuteTaint())
	out := make([]string, 0, len(all))
	for _, t := range all {
		s := t.Key
		if t.Value != "" {
			s += "=" + t.Value
		}
		out = append(out, s+":"+string(t.Effect))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// nodeadmUserData writes nodeadm's NodeConfig (JSON, which YAML readers accept) as the last part
// of a MIME document whose first parts are the custom user data's.
func nodeadmUserData(b bootstrap) (string, error) {
	kubeletConfig := map[string]any{}
	if k := b.Kubelet; k != nil {
		setIf(kubeletConfig, "maxPods", k.MaxPods)
		setIf(kubeletConfig, "podsPerCore", k.PodsPerCore)
		setIf(kubeletConfig, "systemReserved", k.SystemReserved)
		setIf(kubeletConfig, "kubeReserved", k.KubeReserved)
		setIf(kubeletConfig, "evictionHard", k.EvictionHard)
		setIf(kubeletConfig, "evictionSoft", k.EvictionSoft)
		setIf(kubeletConfig, "evictionSoftGracePeriod", k.EvictionSoftGracePeriod)
		setIf(kubeletConfig, "evictionMaxPodGracePeriod", k.EvictionMaxPodGracePeriod)
		setIf(kubeletConfig, "imageGCHighThresholdPercent", k.ImageGCHighThresholdPercent)
		setIf(kubeletConfig, "imageGCLowThresholdPercent", k.ImageGCLowThresholdPercent)
		setIf(kubeletConfig, "cpuCFSQuota", k.CPUCFSQuota)
		setIf(kubeletConfig, "clusterDNS", k.ClusterDNS)
	}
	flags := []string{"--register-with-taints=" + strings.Join(nodeTaints(b.Taints), ",")}
	if labels := nodeLabels(b.Labels); len(labels) > 0 {
		flags = append([]string{"--node-labels=" + strings.Join(labels, ",")}, flags...)
	}
	config := map[string]any{
		"apiVersion": "node.eks.aws/v1alpha1",
		"kind":       "NodeConfig",
		"spec": map[string]any{
			"cluster": map[string]any{
				"name":                 b.ClusterName,
				"apiServerEndpoint":    b.Endpoint,
				"certificateAuthority": b.CABundle,
				"cidr":                 b.ServiceCIDR,
			},
			"kubelet": map[string]any{"config": kubeletConfig, "flags": flags},
		},
	}
	doc, err := json.MarshalIndent(config, "", "  ")
	if err != nil {
		return "", err
	}
	return mimeUserData(b.Custom, "application/node.eks.aws", string(doc))
}

// setIf sets m[key] when v is a non-nil pointer, or a non-empty map or slice.
func setIf[T any](m map[string]any, key string, v T) {
	data, _ := json.Marshal(v)
	if s := string(data); s != "null" && s != "{}" && s != "[]" {
		m[key] = v
	}
}

// mimeUserData builds a MIME multi-part document: the parts of custom (a MIME document, or one
// part: a shell script when it starts with "#!", else of contentType), then a part of
// contentType with body.
func mimeUserData(custom *string, contentType, body string) (string, error) {
	type part struct{ contentType, body string }
	var parts []part
	if custom != nil && strings.TrimSpace(*custom) != "" {
		customParts, err := mimeParts(*custom)
		if err != nil {
			return "", fmt.Errorf("spec.userData: %w", err)
		}
		if customParts == nil {
			ct := contentType
			if strings.HasPrefix(*custom, "#!") {
				ct = "text/x-shellscript"
			}
			customParts = [][2]string{{ct, *custom}}
		}
		for _, p := range customParts {
			parts = append(parts, part{p[0], p[1]})
		}
	}
	parts = append(parts, part{contentType, body})
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := w.SetBoundary("//"); err != nil {
		return "", err
	}
	fmt.Fprintf(&buf, "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"//\"\r\n\r\n")
	for _, p := range parts {
		pw, err := w.CreatePart(textproto.MIMEHeader{"Content-Type": {p.contentType + `; charset="us-ascii"`}})
		if err != nil {
			return "", err
		}
		if _, err := io.WriteString(pw, p.body); err != nil {
			return "", err
		}
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// mimeParts returns the (content type, body) parts of a MIME multi-part document, or nil when
// text is not one.
func mimeParts(text string) ([][2]string, error) {
	if !strings.HasPrefix(strings.TrimSpace(text), "MIME-Version:") {
		return nil, nil
	}
	// One line ending throughout, so that the closing boundary is found whichever was used.
	text = strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n")) + "\n"
	msg, err := mail.ReadMessage(strings.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("reading MIME headers: %w", err)
	}
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || !strings.HasPrefix(mediaType, "multipart/") {
		return nil, fmt.Errorf("MIME document is not multipart (Content-Type %q)", msg.Header.Get("Content-Type"))
	}
	r := multipart.NewReader(msg.Body, params["boundary"])
	var out [][2]string
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading MIME part %d: %w", len(out)+1, err)
		}
		body, err := io.ReadAll(p)
		if err != nil {
			return nil, fmt.Errorf("reading MIME part %d: %w", len(out)+1, err)
		}
		ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		out = append(out, [2]string{ct, string(body)})
	}
}

// al2Script runs the EKS bootstrap script of the AL2 AMIs.
func al2Script(b bootstrap) string {
	var extra []string
	if labels := nodeLabels(b.Labels); len(labels) > 0 {
		extra = append(extra, "--node-labels="+strings.Join(labels, ","))
	}
	extra = append(extra, "--register-with-taints="+strings.Join(nodeTaints(b.Taints), ","))
	args := []string{"/etc/eks/bootstrap.sh", shellQuote(b.ClusterName),
		"--apiserver-endpoint", shellQuote(b.Endpoint), "--b64-cluster-ca", shellQuote(b.CABundle)}
	if k := b.Kubelet; k != nil && k.MaxPods != nil {
		args = append(args, "--use-max-pods", "false")
		extra = append(extra, "--max-pods="+strconv.Itoa(int(*k.MaxPods)))
	}
	if k := b.Kubelet; k != nil && len(k.ClusterDNS) > 0 {
		args = append(args, "--dns-cluster-ip", shellQuote(k.ClusterDNS[0]))
	}
	args = append(args, "--kubelet-extra-args", shellQuote(strings.Join(extra, " ")))
	return "#!/bin/bash -xe\nexec > >(tee /var/log/user-data.log | logger -t user-data -s 2>/dev/console) 2>&1\n" +
		strings.Join(args, " ") + "\n"
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// bottlerocketUserData writes Bottlerocket's TOML settings.
func bottlerocketUserData(b bootstrap) string {
	var sb strings.Builder
	sb.WriteString("[settings.kubernetes]\n")
	fmt.Fprintf(&sb, "cluster-name = %s\napi-server = %s\ncluster-certificate = %s\n",
		strconv.Quote(b.ClusterName), strconv.Quote(b.Endpoint), strconv.Quote(b.CABundle))
	if k := b.Kubelet; k != nil {
		if k.MaxPods != nil {
			fmt.Fprintf(&sb, "max-pods = %d\n", *k.MaxPods)
		}
		if len(k.ClusterDNS) > 0 {
			fmt.Fprintf(&sb, "cluster-dns-ip = %s\n", strconv.Quote(k.ClusterDNS[0]))
		}
	}
	if labels := nodeLabels(b.Labels); len(labels) > 0 {
		sb.WriteString("\n[settings.kubernetes.node-labels]\n")
		for _, l := range labels {
			k, v, _ := strings.Cut(l, "=")
			fmt.Fprintf(&sb, "%s = %s\n", strconv.Quote(k), strconv.Quote(v))
		}
	}
	sb.WriteString("\n[settings.kubernetes.node-taints]\n")
	byKey := map[string][]string{}
	for _, t := range nodeTaints(b.Taints) {
		key, rest, _ := strings.Cut(t, ":")
		k, v, _ := strings.Cut(key, "=")
		byKey[k] = append(byKey[k], strconv.Quote(v+":"+rest))
	}
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		fmt.Fprintf(&sb, "%s = [%s]\n", strconv.Quote(k), strings.Join(byKey[k], ", "))
	}
	if b.Custom != nil && strings.TrimSpace(*b.Custom) != "" {
		sb.WriteString("\n" + *b.Custom + "\n")
	}
	return sb.String()
}

// windowsUserData runs the EKS bootstrap script of the Windows AMIs.
func windowsUserData(b bootstrap) string {
	var extra []string
	if labels := nodeLabels(b.Labels); len(labels) > 0 {
		extra = append(extra, "--node-labels="+strings.Join(labels, ","))
	}
	extra = append(extra, "--register-with-taints="+strings.Join(nodeTaints(b.Taints), ","))
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	var sb strings.Builder
	sb.WriteString("<powershell>\n")
	if b.Custom != nil {
		sb.WriteString(*b.Custom + "\n")
	}
	fmt.Fprintf(&sb, "[string]$EKSBootstrapScriptFile = \"$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1\"\n")
	fmt.Fprintf(&sb, "& $EKSBootstrapScriptFile -EKSClusterName %s -APIServerEndpoint %s -Base64ClusterCA %s -KubeletExtraArgs %s\n",
		q(b.ClusterName), q(b.Endpoint), q(b.CABundle), q(strings.Join(extra, " ")))
	sb.WriteString("</powershell>\n")
	return sb.String()
}
