package aws

import (
	"testing"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

func TestAliasParameters(t *testing.T) {
	tests := []struct {
		alias string
		want  map[string]string
	}{
		{"al2023@latest", map[string]string{
			karpv1.ArchitectureAmd64: "/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id",
			karpv1.ArchitectureArm64: "/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/arm64/standard/recommended/image_id",
		}},
		{"bottlerocket@v1.40.0", map[string]string{
			karpv1.ArchitectureAmd64: "/aws/service/bottlerocket/aws-k8s-1.33/x86_64/1.40.0/image_id",
			karpv1.ArchitectureArm64: "/aws/service/bottlerocket/aws-k8s-1.33/arm64/1.40.0/image_id",
		}},
		{"windows2022@latest", map[string]string{
			karpv1.ArchitectureAmd64: "/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.33/image_id",
		}},
		{"windows2025@latest", map[string]string{
			karpv1.ArchitectureAmd64: "/aws/service/ami-windows-latest/Windows_Server-2025-English-Core-EKS_Optimized-1.33/image_id",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.alias, func(t *testing.T) {
			alias, err := awsv1.ParseAlias(tt.alias)
			if err != nil {
				t.Fatal(err)
			}
			got, err := aliasParameters(alias, "1.33")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("parameters %v, want %v", got, tt.want)
			}
			for arch, want := range tt.want {
				if got[arch] != want {
					t.Errorf("%s: %s, want %s", arch, got[arch], want)
				}
			}
		})
	}
}
